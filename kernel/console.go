package kernel

import (
	"sync/atomic"

	"github.com/unitrace/unitrace/decimal"
	"github.com/unitrace/unitrace/kernel/machine"
)

// Kernel console output without fmt (which allocates): strings, decimal and hex numbers,
// assembled in a small buffer and written to the UART.

type line struct {
	buf [256]byte
	n   int
}

func (l *line) s(s string) *line {
	for i := 0; i < len(s); i++ {
		l.b(s[i])
	}
	return l
}

// bs appends raw bytes (a []byte->string conversion would allocate).
func (l *line) bs(b []byte) *line {
	for _, c := range b {
		l.b(c)
	}
	return l
}

func (l *line) b(c byte) *line {
	if l.n == len(l.buf) {
		l.flush()
	}
	l.buf[l.n] = c
	l.n++
	return l
}

func (l *line) d(v int64) *line {
	if v < 0 {
		l.b('-')
		return l.u(uint64(-v))
	}
	return l.u(uint64(v))
}

func (l *line) u(v uint64) *line {
	var d decimal.Digits
	for _, c := range d.Uint(v) {
		l.b(c)
	}
	return l
}

// x prints v in hex with a 0x prefix and no leading zeros.
func (l *line) x(v uint64) *line { return l.s("0x").hex(v, false) }

// x16 prints v as 16 hex digits, for register dumps.
func (l *line) x16(v uint64) *line { return l.hex(v, true) }

func (l *line) hex(v uint64, zeros bool) *line {
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

func (l *line) flush() {
	lockConsole()
	machine.ConsoleWrite(l.buf[:l.n])
	unlockConsole()
	l.n = 0
}

// nl ends the line and writes it.
func (l *line) nl() {
	l.b('\n')
	l.flush()
}

// logf starts a kernel message line: "unitrace: ...".
func klog() *line {
	l := &klines[machine.CPUIndex()&(maxCPUs-1)]
	l.n = 0
	return l.s("unitrace: ")
}

// klines are the CPUs' buffers of kernel messages (interrupts masked: one line at a time per
// CPU; consoleHeld keeps lines from different CPUs whole).
var klines [maxCPUs]line

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
