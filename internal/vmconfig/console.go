package vmconfig

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
)

// Console protocol lines the kernel prints on its serial console.
const (
	// ExitLinePrefix starts the last line of a guest that exits: the
	// decimal exit_group status (0..255) follows.
	ExitLinePrefix = "unitrace: exit status "
	// FaultLinePrefix starts the lines of a kernel fault report.
	FaultLinePrefix = "unitrace: kernel fault"
	// FaultHaltLine ends a kernel fault report.
	FaultHaltLine = "unitrace: kernel fault, halting"
	// KernelPrefix starts every kernel message.
	KernelPrefix = "unitrace: "
)

// maxProtocolLine bounds the part of a line the scanner keeps: protocol
// lines are short, and a guest printing a huge line must not make the host
// side grow without limit.
const maxProtocolLine = 128

// Seen is what the console showed of the protocol.
type Seen struct {
	ExitLine     bool // a well-formed exit line appeared
	ExitStatus   int  // the status of the last one
	Fault        bool // a kernel fault report started
	FaultHalting bool // and ended with the halting line
	// QEMUSignal is the signal QEMU's standard error said it stopped on (a
	// StderrScanner's), 0 for none: QEMU catches SIGINT, SIGTERM and SIGHUP,
	// prints "terminating on signal N" and exits with status 0, which would
	// otherwise read as a reset.
	QEMUSignal int
}

// Console scans a guest's serial output for the protocol lines. It is an
// io.WriteCloser that never fails and never blocks, so it can sit in an
// io.MultiWriter next to the terminal or in vmtest's SerialOutput.
type Console struct {
	mu   sync.Mutex
	line []byte
	long bool // the current line outgrew maxProtocolLine
	seen Seen
	scan func(*Seen, string) // ScanLine when nil
}

// NewStderrScanner returns a Console that scans QEMU's standard error instead
// (ScanQEMULine): its Seen has QEMUSignal.
func NewStderrScanner() *Console { return &Console{scan: ScanQEMULine} }

// Write scans p. It always consumes all of p.
func (c *Console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			c.add(p)
			break
		}
		c.add(p[:i])
		c.endLine()
		p = p[i+1:]
	}
	return n, nil
}

// Close scans a last line that has no newline.
func (c *Console) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.line) > 0 || c.long {
		c.endLine()
	}
	return nil
}

// Seen returns what was seen so far.
func (c *Console) Seen() Seen {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen
}

func (c *Console) add(p []byte) {
	if room := maxProtocolLine - len(c.line); len(p) > room {
		p, c.long = p[:room], true
	}
	c.line = append(c.line, p...)
}

func (c *Console) endLine() {
	if !c.long {
		scan := c.scan
		if scan == nil {
			scan = ScanLine
		}
		scan(&c.seen, string(bytes.TrimRight(c.line, "\r")))
	}
	c.line, c.long = c.line[:0], false
}

// ScanLine updates s with one console line (without its line ending).
func ScanLine(s *Seen, line string) {
	if status, ok := ParseExitLine(line); ok {
		s.ExitLine, s.ExitStatus = true, status
	}
	if len(line) >= len(FaultLinePrefix) && line[:len(FaultLinePrefix)] == FaultLinePrefix {
		s.Fault = true
		if line == FaultHaltLine {
			s.FaultHalting = true
		}
	}
}

// qemuSignalLine is what QEMU's error_report prints, after "qemu-system-ARCH: ", when a
// signal it catches stops it (QEMU's runstate.c: "terminating on signal %d from pid %d (%s)",
// or without the pid part when the sender is unknown).
const qemuSignalLine = ": terminating on signal "

// ScanQEMULine updates s with one line of QEMU's standard error.
func ScanQEMULine(s *Seen, line string) {
	i := strings.Index(line, qemuSignalLine)
	if i < 0 || !strings.HasPrefix(line, "qemu-system-") {
		return
	}
	digits := line[i+len(qemuSignalLine):]
	if j := strings.IndexByte(digits, ' '); j >= 0 {
		digits = digits[:j]
	}
	if n, err := strconv.Atoi(digits); err == nil && n > 0 && n < 65 {
		s.QEMUSignal = n
	}
}

// ParseExitLine returns the status of an exit line.
func ParseExitLine(line string) (int, bool) {
	if len(line) <= len(ExitLinePrefix) || line[:len(ExitLinePrefix)] != ExitLinePrefix {
		return 0, false
	}
	digits := line[len(ExitLinePrefix):]
	if len(digits) > 3 || (len(digits) > 1 && digits[0] == '0') {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 0 || n > 255 || digits[0] == '+' || digits[0] == '-' {
		return 0, false
	}
	return n, true
}
