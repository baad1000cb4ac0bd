// Package termios describes the console as a terminal, for the ioctls of termios(3) and tty(4):
// the terminal attributes TCGETS reports (struct termios, the settings the serial line really
// has), the window size of TIOCGWINSZ and TIOCSWINSZ, and the request numbers.
//
// The package is kernel-mode Go: pointer-free, allocation-free, never panics on any input.
package termios

// ioctl requests (include/uapi/asm-generic/ioctls.h: the same numbers on amd64 and arm64).
const (
	TCGETS     = 0x5401
	TCSETS     = 0x5402
	TCSETSW    = 0x5403
	TCSETSF    = 0x5404
	TIOCGPGRP  = 0x540F
	TIOCSPGRP  = 0x5410
	TIOCGWINSZ = 0x5413
	TIOCSWINSZ = 0x5414
	FIONREAD   = 0x541B
	FIONBIO    = 0x5421
	FIONCLEX   = 0x5450
	FIOCLEX    = 0x5451
)

// Flag bits (include/uapi/asm-generic/termbits.h, termbits-common.h).
const (
	OPOST   = 0o1
	ONLCR   = 0o4
	B115200 = 0o010002
	CS8     = 0o60
	CREAD   = 0o200
	CLOCAL  = 0o4000
)

// Indices into c_cc, and NCCS, the kernel's struct termios's array length.
const (
	VINTR    = 0
	VQUIT    = 1
	VERASE   = 2
	VKILL    = 3
	VEOF     = 4
	VTIME    = 5
	VMIN     = 6
	VSWTC    = 7
	VSTART   = 8
	VSTOP    = 9
	VSUSP    = 10
	VEOL     = 11
	VREPRINT = 12
	VDISCARD = 13
	VWERASE  = 14
	VLNEXT   = 15
	VEOL2    = 16
	NCCS     = 19
)

// Size is the size of the kernel's struct termios, which TCGETS writes and TCSETS reads: four
// 32-bit flag words, c_line, and c_cc (C libraries' struct termios is longer; the speeds that
// follow are theirs).
const Size = 4*4 + 1 + NCCS

// Termios is struct termios.
type Termios struct {
	Iflag, Oflag, Cflag, Lflag uint32
	Line                       uint8
	CC                         [NCCS]uint8
}

// Console is the console's attributes: what the serial line and the kernel's console driver do,
// with no line discipline between them and the program. Input is raw: no flag of c_iflag or
// c_lflag is set, so nothing is echoed, edited, translated or turned into a signal, and a read
// returns as soon as a byte is there (VMIN 1, VTIME 0). Output turns "\n" into "\r\n" (OPOST,
// ONLCR). The line runs at 115200 baud, 8 bits, no parity, one stop bit, no modem control
// (B115200, CS8, CREAD, CLOCAL). c_cc holds Linux's default characters (INIT_C_CC), which have
// no effect without ICANON and ISIG, as on any tty in raw mode.
func Console() Termios {
	t := Termios{
		Oflag: OPOST | ONLCR,
		Cflag: B115200 | CS8 | CREAD | CLOCAL,
	}
	t.CC[VINTR] = 0x03    // ^C
	t.CC[VQUIT] = 0x1c    // ^\
	t.CC[VERASE] = 0x7f   // DEL
	t.CC[VKILL] = 0x15    // ^U
	t.CC[VEOF] = 0x04     // ^D
	t.CC[VMIN] = 1        //
	t.CC[VSTART] = 0x11   // ^Q
	t.CC[VSTOP] = 0x13    // ^S
	t.CC[VSUSP] = 0x1a    // ^Z
	t.CC[VREPRINT] = 0x12 // ^R
	t.CC[VDISCARD] = 0x0f // ^O
	t.CC[VWERASE] = 0x17  // ^W
	t.CC[VLNEXT] = 0x16   // ^V
	return t
}

// Put stores t in b (at least Size bytes) as the kernel's struct termios, little-endian.
func (t Termios) Put(b []byte) {
	if len(b) < Size {
		return
	}
	put32(b[0:], t.Iflag)
	put32(b[4:], t.Oflag)
	put32(b[8:], t.Cflag)
	put32(b[12:], t.Lflag)
	b[16] = t.Line
	copy(b[17:Size], t.CC[:])
}

// Get reads a struct termios from b (at least Size bytes).
func Get(b []byte) Termios {
	var t Termios
	if len(b) < Size {
		return t
	}
	t.Iflag, t.Oflag, t.Cflag, t.Lflag = get32(b[0:]), get32(b[4:]), get32(b[8:]), get32(b[12:])
	t.Line = b[16]
	copy(t.CC[:], b[17:Size])
	return t
}

// WinsizeSize is the size of struct winsize: rows, columns, and the width and height in pixels,
// 16 bits each.
const WinsizeSize = 8

// Winsize is struct winsize. A serial line does not know the size of the terminal at its other
// end: a tty's starts as zeros, and only TIOCSWINSZ changes it.
type Winsize struct {
	Row, Col, Xpixel, Ypixel uint16
}

// Put stores w in b (at least WinsizeSize bytes).
func (w Winsize) Put(b []byte) {
	if len(b) < WinsizeSize {
		return
	}
	put16(b[0:], w.Row)
	put16(b[2:], w.Col)
	put16(b[4:], w.Xpixel)
	put16(b[6:], w.Ypixel)
}

// GetWinsize reads a struct winsize from b (at least WinsizeSize bytes).
func GetWinsize(b []byte) Winsize {
	if len(b) < WinsizeSize {
		return Winsize{}
	}
	return Winsize{get16(b[0:]), get16(b[2:]), get16(b[4:]), get16(b[6:])}
}

func put32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}
func get32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
func put16(b []byte, v uint16) { b[0], b[1] = byte(v), byte(v>>8) }
func get16(b []byte) uint16    { return uint16(b[0]) | uint16(b[1])<<8 }
