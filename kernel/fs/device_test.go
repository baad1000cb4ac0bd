package fs

import (
	"bytes"
	"os"
	"syscall"
	"testing"
)

// TestDevicesLikeLinux reads and writes the host's own /dev nodes and compares.
func TestDevicesLikeLinux(t *testing.T) {
	for _, d := range []struct {
		path string
		rdev uint64
	}{{"/dev/null", DevNull}, {"/dev/zero", DevZero}, {"/dev/full", DevFull}, {"/dev/urandom", DevURandom}} {
		f, err := os.OpenFile(d.path, os.O_RDWR, 0)
		if err != nil {
			t.Logf("%s: %v", d.path, err)
			continue
		}
		want := bytes.Repeat([]byte{0xaa}, 10)
		wn, _ := f.Read(want)
		got := bytes.Repeat([]byte{0xaa}, 10)
		n, random, errno := ReadDevice(d.rdev, got)
		if n != wn || errno != 0 || random != (d.rdev == DevURandom) || !random && !bytes.Equal(got[:n], want[:wn]) {
			t.Errorf("%s: read %d %q random=%v errno %d, Linux %d %q", d.path, n, got[:n], random, errno, wn, want[:wn])
		}
		_, werr := f.Write([]byte("abc"))
		n, errno = WriteDevice(d.rdev, 3)
		if (werr == nil) != (errno == 0) || werr == nil && n != 3 {
			t.Errorf("%s: write %d, %d; Linux %v", d.path, n, errno, werr)
		}
		f.Close()
		var st syscall.Stat_t
		if err := syscall.Stat(d.path, &st); err == nil && st.Rdev != d.rdev {
			t.Errorf("%s: rdev %#x on the host, %#x here", d.path, st.Rdev, d.rdev)
		}
	}
	if KnownDevice(Mkdev(1, 4)) {
		t.Error("/dev/port is not served")
	}
}
