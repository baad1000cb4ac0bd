package termios

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The request numbers and flag bits are x/sys/unix's (which come from Linux's headers), and the
// layout is the kernel's struct termios: x/sys's Termios is glibc's, Size bytes of the kernel's
// and then the speeds.
func TestABI(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uint64
	}{
		{"TCGETS", TCGETS, unix.TCGETS}, {"TCSETS", TCSETS, unix.TCSETS}, {"TCSETSW", TCSETSW, unix.TCSETSW},
		{"TCSETSF", TCSETSF, unix.TCSETSF}, {"TIOCGPGRP", TIOCGPGRP, unix.TIOCGPGRP},
		{"TIOCSPGRP", TIOCSPGRP, unix.TIOCSPGRP}, {"TIOCGWINSZ", TIOCGWINSZ, unix.TIOCGWINSZ},
		{"TIOCSWINSZ", TIOCSWINSZ, unix.TIOCSWINSZ}, {"FIONREAD", FIONREAD, unix.TIOCINQ},
		{"FIONBIO", FIONBIO, 0x5421}, {"FIONCLEX", FIONCLEX, 0x5450}, {"FIOCLEX", FIOCLEX, 0x5451},
		{"OPOST", OPOST, unix.OPOST}, {"ONLCR", ONLCR, unix.ONLCR}, {"B115200", B115200, unix.B115200},
		{"CS8", CS8, unix.CS8}, {"CREAD", CREAD, unix.CREAD}, {"CLOCAL", CLOCAL, unix.CLOCAL},
		{"VMIN", VMIN, unix.VMIN}, {"VTIME", VTIME, unix.VTIME}, {"VINTR", VINTR, unix.VINTR},
		{"VLNEXT", VLNEXT, unix.VLNEXT}, {"VEOL2", VEOL2, unix.VEOL2},
		{"Size", Size, uint64(unsafe.Offsetof(unix.Termios{}.Ispeed))},
		{"WinsizeSize", WinsizeSize, uint64(unsafe.Sizeof(unix.Winsize{}))},
	} {
		if c.got != c.want {
			t.Errorf("%s = %#x, want %#x", c.name, c.got, c.want)
		}
	}
}

func TestConsoleRoundTrip(t *testing.T) {
	c := Console()
	var b [Size]byte
	c.Put(b[:])
	if Get(b[:]) != c {
		t.Fatalf("round trip: %+v", Get(b[:]))
	}
	u := (*unix.Termios)(unsafe.Pointer(&[64]byte{}))
	copy((*[Size]byte)(unsafe.Pointer(u))[:], b[:])
	if u.Iflag != 0 || u.Lflag != 0 || u.Oflag != unix.OPOST|unix.ONLCR ||
		u.Cflag&unix.CBAUD != unix.B115200 || u.Cflag&unix.CSIZE != unix.CS8 || u.Cc[unix.VMIN] != 1 || u.Cc[unix.VINTR] != 3 {
		t.Errorf("as x/sys/unix reads it: %+v", u)
	}
	// Raw already: x/term.MakeRaw's changes leave it as it is, but for ONLCR (OPOST cleared).
	raw := *u
	raw.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	raw.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	raw.Cflag &^= unix.CSIZE | unix.PARENB
	raw.Cflag |= unix.CS8
	if raw.Iflag != u.Iflag || raw.Lflag != u.Lflag || raw.Cflag != u.Cflag {
		t.Errorf("MakeRaw changes the console's input settings: %+v", raw)
	}
	Get(b[:3]) // short buffers are ignored, never a panic
	c.Put(b[:3])
}

func TestWinsize(t *testing.T) {
	w := Winsize{24, 80, 640, 480}
	var b [WinsizeSize]byte
	w.Put(b[:])
	if GetWinsize(b[:]) != w {
		t.Errorf("round trip: %+v", GetWinsize(b[:]))
	}
	u := (*unix.Winsize)(unsafe.Pointer(&b[0]))
	if u.Row != 24 || u.Col != 80 || u.Xpixel != 640 || u.Ypixel != 480 {
		t.Errorf("as x/sys/unix reads it: %+v", u)
	}
}
