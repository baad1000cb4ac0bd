// Package klog writes the kernel's messages to the console without fmt (which allocates):
// strings, decimal and hex numbers, assembled in a per-CPU buffer and written whole.
//
//	klog.Log().S("smp: cpu ").D(int64(c)).S(" online").NL()
package klog

import (
	"sync/atomic"

	"github.com/unitrace/unitrace/decimal"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/sched"
)

// Line is one message being assembled; Log starts it, NL writes it. A line longer than the
// buffer is written in pieces.
type Line struct {
	buf [256]byte
	n   int
}

// S appends a string.
func (l *Line) S(s string) *Line {
	for i := 0; i < len(s); i++ {
		l.b(s[i])
	}
	return l
}

// BS appends raw bytes (a []byte->string conversion would allocate).
func (l *Line) BS(b []byte) *Line {
	for _, c := range b {
		l.b(c)
	}
	return l
}

func (l *Line) b(c byte) *Line {
	if l.n == len(l.buf) {
		l.flush()
	}
	l.buf[l.n] = c
	l.n++
	return l
}

// D appends v in decimal.
func (l *Line) D(v int64) *Line {
	if v < 0 {
		l.b('-')
		return l.U(uint64(-v))
	}
	return l.U(uint64(v))
}

// U appends v in decimal.
func (l *Line) U(v uint64) *Line {
	var d decimal.Digits
	for _, c := range d.Uint(v) {
		l.b(c)
	}
	return l
}

// X appends v in hex with a 0x prefix and no leading zeros.
func (l *Line) X(v uint64) *Line { return l.S("0x").hex(v, false) }

// X16 appends v as 16 hex digits, for register dumps.
func (l *Line) X16(v uint64) *Line { return l.hex(v, true) }

func (l *Line) hex(v uint64, zeros bool) *Line {
	const digits = "0123456789abcdef"
	for shift := 60; shift >= 0; shift -= 4 {
		d := v >> uint(shift) & 0xf
		if d != 0 || zeros || shift == 0 {
			l.b(digits[d])
			zeros = true
		}
	}
	return l
}

func (l *Line) flush() {
	lockConsole()
	machine.ConsoleWrite(l.buf[:l.n])
	unlockConsole()
	l.n = 0
}

// NL ends the line and writes it.
func (l *Line) NL() {
	l.b('\n')
	l.flush()
}

// Log starts a kernel message line: "unitrace: ...".
func Log() *Line {
	l := &klines[machine.CPUIndex()&(sched.MaxCPUs-1)]
	l.n = 0
	return l.S("unitrace: ")
}

// klines are the CPUs' buffers of kernel messages (interrupts masked: one line at a time per
// CPU; consoleHeld keeps lines from different CPUs whole).
var klines [sched.MaxCPUs]Line

var consoleHeld atomic.Uint32

// lockConsole takes the console for one write. The wait is bounded: a CPU that stopped while
// holding it (a fault in the middle of a line) must not silence the others for good.
func lockConsole() {
	for i := 0; i < 10_000_000; i++ {
		if consoleHeld.CompareAndSwap(0, 1) {
			return
		}
		machine.CPURelax()
	}
}

func unlockConsole() { consoleHeld.Store(0) }

// BootFault reports why the boot cannot go on and stops the machine as a kernel fault does.
func BootFault(why string) {
	Log().S("kernel fault: boot: ").S(why).NL()
	Log().S("kernel fault, halting").NL()
	machine.Exit(machine.FaultExitValue)
}

// Once writes msg as a line the first time it is called with done, a flag of the caller's.
func Once(done *bool, msg string) {
	if *done {
		return
	}
	*done = true
	Log().S(msg).NL()
}
