package agent

import (
	"runtime"
	"syscall"
	"unsafe"

	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/trace/wire"
)

// The kernel's side of the data port, through the agent's private system calls
// (trace/sysabi.go).

// drain has the kernel send one DATA frame of cpu's records; it returns the record bytes sent.
func drain(cpu int) (uint64, error) {
	n, _, errno := syscall.Syscall(trace.SysDrain, uintptr(cpu), 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return uint64(n), nil
}

// send has the kernel frame and send m, split into fragments (the wire's more flag) when it
// is longer than one send takes. (A DICT goes through sendDict instead: its fragments hold whole
// entries.)
func send(m wire.Message) error {
	p, err := m.AppendPayload(nil)
	if err != nil {
		return err
	}
	for {
		chunk, flags := p, uint16(0)
		if len(chunk) > trace.MaxSendPayload {
			chunk, flags = chunk[:trace.MaxSendPayload], wire.FlagMore
		}
		if err := sendRaw(m.FrameType(), flags, chunk); err != nil {
			return err
		}
		p = p[len(chunk):]
		if flags == 0 {
			return nil
		}
	}
}

// sendRaw has the kernel send one frame with payload p.
func sendRaw(typ wire.Type, flags uint16, p []byte) error {
	var ptr uintptr
	if len(p) > 0 {
		ptr = uintptr(unsafe.Pointer(&p[0]))
	}
	_, _, errno := syscall.Syscall(trace.SysSend, uintptr(typ)|uintptr(flags)<<8, ptr, uintptr(len(p)))
	if errno != 0 {
		return errno
	}
	return nil
}

// kernelCtlValue runs a tracer operation in the kernel and returns its result.
func kernelCtlValue(op, a, b uint64) (uint64, error) {
	r, _, errno := syscall.Syscall(trace.SysCtl, uintptr(op), uintptr(a), uintptr(b))
	if errno != 0 {
		return 0, errno
	}
	return uint64(r), nil
}

// kernelCtl runs a tracer operation in the kernel (trace.Ctl*).
func kernelCtl(op, a, b uint64) error {
	_, err := kernelCtlValue(op, a, b)
	return err
}

// kernelStacks has the kernel write its stacks snapshot into buf (trace.CtlStacks) and returns
// the number of entries. The kernel stores into buf during the call: the pointer is converted
// in the call expression, as package unsafe requires, and buf is kept alive until it returns.
func kernelStacks(buf []byte) (uint64, error) {
	if len(buf) == 0 {
		return 0, syscall.EINVAL
	}
	n, _, errno := syscall.Syscall(trace.SysCtl, trace.CtlStacks, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	runtime.KeepAlive(buf)
	if errno != 0 {
		return 0, errno
	}
	return uint64(n), nil
}
