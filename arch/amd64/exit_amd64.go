package amd64

// debugExitPort is QEMU's isa-debug-exit device (-device isa-debug-exit,iobase=0xf4,iosize=0x04):
// writing v makes QEMU exit with status (v<<1)|1.
const debugExitPort = 0xf4

// FaultExitValue is written to the exit device after a kernel fault report; the host reads
// QEMU status 0xff and the console's fault line.
const FaultExitValue = 0x7f

// Exit ends the machine with the guest's exit code. Without the exit device the write does
// nothing, and the CPU halts for good.
func Exit(code uint32) {
	Outl(debugExitPort, code)
	halt()
}

// Halt stops the calling CPU for good (interrupts off, HLT in a loop): for a CPU the kernel has
// no use for.
func Halt() { halt() }
