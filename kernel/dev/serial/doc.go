// Package serial is the trace device: one virtio-serial device whose named ports carry the
// tracer's stream (org.unitrace.data), its commands (org.unitrace.ctl) and the program's sockets
// (org.unitrace.net, netport.go). It owns the ports' state, their wait keys' wake-ups and the
// completion of a thread blocked on a port (CompleteDeviceWait); the trace agent's operations on
// the data port are the tracer's, handed down at boot (AgentDrain, AgentSend).
package serial
