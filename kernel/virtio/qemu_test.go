package virtio

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/unitrace/unitrace/kernel/fs/p9"
)

// qtestBus drives a real QEMU through its qtest protocol (-qtest stdio: one command per line,
// "OK [value]" back): the guest's CPU never runs, the test plays the guest kernel. Guest RAM
// is a shared file mapped into the test too, so the driver reaches it through its direct map.
type qtestBus struct {
	t   testing.TB
	in  io.Writer
	out *bufio.Reader
}

func (b *qtestBus) do(format string, args ...any) uint64 {
	fmt.Fprintf(b.in, format+"\n", args...)
	for {
		line, err := b.out.ReadString('\n')
		if err != nil {
			b.t.Fatalf("qtest: %v", err)
		}
		f := strings.Fields(line)
		if len(f) == 0 || f[0] == "IRQ" {
			continue
		}
		if f[0] != "OK" {
			b.t.Fatalf("qtest %q: %s", fmt.Sprintf(format, args...), line)
		}
		if len(f) < 2 {
			return 0
		}
		v, err := strconv.ParseUint(f[1], 0, 64)
		if err != nil {
			b.t.Fatalf("qtest %q: %s", fmt.Sprintf(format, args...), line)
		}
		return v
	}
}

func (b *qtestBus) Read32(addr uintptr) uint32     { return uint32(b.do("readl %#x", addr)) }
func (b *qtestBus) Read8(addr uintptr) uint8       { return uint8(b.do("readb %#x", addr)) }
func (b *qtestBus) Write32(addr uintptr, v uint32) { b.do("writel %#x %#x", addr, v) }

// TestNinePQEMU runs the driver against QEMU's own virtio-9p-device on both interface
// versions, with the kernel's 9P client on top: Tversion, Tattach, a walk and Tlopen of a
// file in the shared directory, and Tread of its bytes. The mount tag "host" is 4 bytes, so
// its last 2 lie in a word that QEMU answers with all ones to a 32-bit read.
func TestNinePQEMU(t *testing.T) {
	qemu, err := exec.LookPath("qemu-system-x86_64")
	if err != nil || testing.Short() {
		t.Skip("needs qemu-system-x86_64 (and not -short)")
	}
	for _, ver := range versions {
		t.Run(ver.name, func(t *testing.T) { runNinePQEMU(t, qemu, ver.v) })
	}
}

func runNinePQEMU(t *testing.T, qemu string, version uint32) {
	const memSize = 32 << 20
	dir := t.TempDir()
	share := filepath.Join(dir, "share")
	content := []byte("hello from the host\n")
	if err := os.Mkdir(share, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(share, "hello.txt"), content, 0o644); err != nil {
		t.Fatal(err)
	}
	ramPath := filepath.Join(dir, "ram")
	ramFile, err := os.Create(ramPath)
	if err != nil {
		t.Fatal(err)
	}
	defer ramFile.Close()
	if err := ramFile.Truncate(memSize); err != nil {
		t.Fatal(err)
	}
	ram, err := syscall.Mmap(int(ramFile.Fd()), 0, memSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(ram)

	args := []string{"-M", "microvm,memory-backend=ram", "-m", "32M",
		"-object", "memory-backend-file,id=ram,size=32M,share=on,mem-path=" + ramPath,
		"-display", "none", "-nodefaults", "-qtest", "stdio", "-qtest-log", "/dev/null",
		"-fsdev", "local,id=share,path=" + share + ",security_model=none",
		"-device", "virtio-9p-device,fsdev=share,mount_tag=host"}
	if version == VersionModern {
		args = append(args, "-global", "virtio-mmio.force-legacy=false")
	}
	cmd := exec.Command(qemu, args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("qemu's stderr: %s", stderr.String())
		}
	}()
	bus := &qtestBus{t: t, in: in, out: bufio.NewReader(out)}

	var addrs [4]uintptr
	if n := FindDevices(bus, MicrovmBase, MicrovmSlots, DeviceID9P, addrs[:]); n != 1 || addrs[0] != MicrovmBase+23*SlotSize {
		t.Fatalf("FindDevices = %d %#x", n, addrs[:n])
	}
	const (
		memPA  = 1 << 20
		reqPA  = 2 << 20
		respPA = 3 << 20
		msize  = 64 << 10
	)
	var d NinePDevice
	directMap := reflect.ValueOf(ram).Pointer()
	if err := d.Init(bus, bus, NinePConfig{Base: addrs[0], MemPA: memPA, MemSize: NinePMemSize, DirectMap: directMap}); err != OK {
		t.Fatalf("Init: %v", err)
	}
	if d.Version() != version {
		t.Errorf("version %d", d.Version())
	}
	var tag [MaxMountTagLen]byte
	if n := d.MountTag(tag[:]); string(tag[:n]) != "host" {
		t.Errorf("mount tag %q", tag[:n])
	}

	s := &nineSession{t: t, bus: bus, d: &d, req: ram[reqPA : reqPA+msize], resp: ram[respPA : respPA+msize],
		reqPA: reqPA, respPA: respPA}
	c, req, do := &s.c, s.req, s.do
	if res := do("Tversion")(c.Version(req, msize)); res.Msize != msize {
		t.Errorf("msize %d", res.Msize)
	}
	root := do("Tattach")(c.Attach(req, []byte("unitrace"), nil, uint32(os.Getuid()))).Fid
	f := do("open")(c.Open(req, root, []byte("hello.txt"), 0)).Fid
	if res := do("Tread")(c.Read(req, f, 0, 4096)); !bytes.Equal(res.Data, content) {
		t.Errorf("read %q, want %q", res.Data, content)
	}
	// The interrupt for the last reply may come after its used entry was seen.
	for end := time.Now().Add(10 * time.Second); !s.raised && time.Now().Before(end); time.Sleep(time.Millisecond) {
		var done [1]NineCompletion
		n, _, raised := d.Interrupt(bus, done[:])
		if n != 0 {
			t.Errorf("completion %+v with nothing in flight", done[0])
		}
		s.raised = raised
	}
	if !s.raised {
		t.Error("InterruptStatus never set")
	}
	if d.Stats != (Stats{}) || d.InFlight() != 0 {
		t.Errorf("stats %+v, in flight %d", d.Stats, d.InFlight())
	}
}

// nineSession runs the kernel's 9P client over a NinePDevice, one operation at a time, with
// one request and one reply buffer.
type nineSession struct {
	t             *testing.T
	bus           *qtestBus
	d             *NinePDevice
	c             p9.Client
	req, resp     []byte
	reqPA, respPA uintptr
	raised        bool // some Interrupt saw InterruptStatus set
}

// do(what)(c.Op(...)) runs one operation to its end and returns its result; an error fails
// the test.
func (s *nineSession) do(what string) func(uint16, int, int) p9.Result {
	return func(tag uint16, n int, errno int) p9.Result {
		s.t.Helper()
		if errno != 0 {
			s.t.Fatalf("%s: errno %d", what, errno)
		}
		for hops := 0; ; hops++ {
			m := s.roundTrip(what, n)
			res := s.c.Reply(tag, s.resp[:m], s.req)
			if res.Done {
				if res.Errno != 0 {
					s.t.Fatalf("%s: errno %d (%v)", what, res.Errno, res.Err)
				}
				return res
			}
			if hops > 10 {
				s.t.Fatalf("%s: does not end", what)
			}
			n = res.Next
		}
	}
}

// roundTrip sends the request's first n bytes and waits for the reply; it returns the reply's
// length.
func (s *nineSession) roundTrip(what string, n int) uint32 {
	s.t.Helper()
	tok, err := s.d.Send(s.bus, s.reqPA, uint32(n), s.respPA, uint32(len(s.resp)))
	if err != OK {
		s.t.Fatalf("%s: Send: %v", what, err)
	}
	var done [4]NineCompletion
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			s.t.Fatalf("%s: no reply (stats %+v)", what, s.d.Stats)
		}
		// The used entry (in shared memory) can be seen before QEMU sets InterruptStatus,
		// so a completion may come with raised false; the status shows in a later call.
		got, _, raised := s.d.Interrupt(s.bus, done[:])
		s.raised = s.raised || raised
		if got == 0 {
			continue
		}
		if got != 1 || done[0].Token != tok {
			s.t.Fatalf("%s: completions %+v, want token %#x", what, done[:got], tok)
		}
		return done[0].Len
	}
}
