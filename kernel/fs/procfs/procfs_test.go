package procfs_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"

	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/procfs"
	"github.com/unitrace/unitrace/kernel/fs/procfs/proctest"
	"github.com/unitrace/unitrace/kernel/sched"
)

// mainSlot is the main thread's slot, the caller of the tests' reads.
const mainSlot = int32(sched.FirstThread)

// now is the wall-clock time the tests read at: 12.345 s after the fixture's boot.
var now = fs.Timespec{Sec: 1_700_000_012, Nsec: 345_000_000}

type rig struct {
	t  *testing.T
	x  *proctest.Fixture
	fs procfs.FS
}

func newRig(t *testing.T, cmdline string) *rig {
	r := &rig{t: t, x: proctest.New(t, cmdline)}
	r.fs.Init(&r.x.Src)
	return r
}

// walk resolves a path inside /proc (no links followed) to an inode number.
func (r *rig) walk(path string) (uint32, int) {
	n := procfs.RootIno
	for _, name := range strings.Split(path, "/") {
		if name == "" {
			continue
		}
		var errno int
		if n, errno = r.fs.Lookup(n, []byte(name)); errno != 0 {
			return 0, errno
		}
	}
	return n, 0
}

func (r *rig) ino(path string) uint32 {
	r.t.Helper()
	n, errno := r.walk(path)
	if errno != 0 {
		r.t.Fatalf("lookup %s: errno %d", path, errno)
	}
	return n
}

// read reads the whole file with reads of size chunk, as a program would.
func (r *rig) read(path string, chunk int) string {
	r.t.Helper()
	n := r.ino(path)
	var out []byte
	buf := make([]byte, chunk)
	for {
		got, errno := r.fs.Read(mainSlot, n, int64(len(out)), buf, now, 10)
		if errno != 0 {
			r.t.Fatalf("read %s at %d: errno %d", path, len(out), errno)
		}
		if got == 0 {
			return string(out)
		}
		out = append(out, buf[:got]...)
	}
}

// list returns the names getdents gives for a directory, read with a buffer of size bufLen.
func (r *rig) list(path string, bufLen int) []string {
	r.t.Helper()
	n := r.ino(path)
	var names []string
	var cookie uint64
	buf := make([]byte, bufLen)
	for {
		got, next, errno := r.fs.ReadDir(n, cookie, buf)
		if errno != 0 {
			r.t.Fatalf("readdir %s: errno %d", path, errno)
		}
		if got == 0 {
			return names
		}
		for b := buf[:got]; len(b) > 0; {
			reclen := binary.LittleEndian.Uint16(b[16:])
			name := b[19:reclen]
			names = append(names, string(name[:bytes.IndexByte(name, 0)]))
			b = b[reclen:]
		}
		cookie = next
	}
}

func TestFiles(t *testing.T) {
	r := newRig(t, `HOME=/root "A=b c" -- one "two three"`)
	for _, chunk := range []int{1, 3, 512} {
		if got, want := r.read("1/cmdline", chunk), "/app\x00one\x00two three\x00"; got != want {
			t.Errorf("cmdline in reads of %d = %q, want %q", chunk, got, want)
		}
	}
	if got, want := r.read("1/environ", 7), "HOME=/root\x00A=b c\x00"; got != want {
		t.Errorf("environ = %q, want %q", got, want)
	}
	if got := r.read("1/comm", 64); got != "app\n" {
		t.Errorf("comm = %q", got)
	}
	if got := r.read("sys/fs/pipe-max-size", 512); got != fmt.Sprintf("%d\n", fd.PipeSize) {
		t.Errorf("pipe-max-size = %q", got)
	}
	// 12.345 s since boot; two CPUs, the main thread ran 2 s of it.
	r.x.Sched.Block(sched.FirstThread)
	r.x.Sched.Next(0, 2e9, r.x.Src.Clock)
	if got, want := r.read("uptime", 512), "12.34 22.69\n"; got != want {
		t.Errorf("uptime = %q, want %q", got, want)
	}
}

func TestStatus(t *testing.T) {
	r := newRig(t, "")
	tid := r.x.AddThread(t, 7)
	r.x.Sched.SetAffinity(tid, 2)
	want := "Name:\tapp\nUmask:\t0022\nState:\tR (running)\nTgid:\t1\nNgid:\t0\nPid:\t1\nPPid:\t0\n" +
		"TracerPid:\t0\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nFDSize:\t1024\nGroups:\t \nNStgid:\t1\n" +
		"NSpid:\t1\nVmRSS:\t    5296 kB\nRssAnon:\t    1200 kB\nRssFile:\t    4096 kB\nRssShmem:\t       0 kB\n" +
		"Threads:\t2\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\n"
	if got := r.read("1/status", 100); got != want {
		t.Errorf("status =\n%s\nwant\n%s", got, want)
	}
	got := r.read("1/task/7/status", 4096)
	for _, line := range []string{"\nState:\tR (running)\n", "\nPid:\t7\n", "\nTgid:\t1\n", "\nCpus_allowed:\t2\nCpus_allowed_list:\t1\n"} {
		if !strings.Contains(got, line) {
			t.Errorf("task 7's status lacks %q:\n%s", line, got)
		}
	}
	r.x.Sched.Block(sched.FirstThread)
	if got := r.read("1/status", 4096); !strings.Contains(got, "\nState:\tS (sleeping)\n") {
		t.Errorf("status of a blocked leader:\n%s", got)
	}
	// The host's own status has every line this one has, in the same order.
	host, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	var hostNames []string
	for _, l := range strings.Split(string(host), "\n") {
		if k, _, ok := strings.Cut(l, ":"); ok {
			hostNames = append(hostNames, k)
		}
	}
	last := -1
	for _, l := range strings.Split(strings.TrimSuffix(want, "\n"), "\n") {
		k, _, _ := strings.Cut(l, ":")
		i := slices.Index(hostNames, k)
		if i <= last {
			t.Errorf("%q is not in the host's status after the lines before it", k)
		}
		last = i
	}
}

func TestStat(t *testing.T) {
	r := newRig(t, "")
	r.x.SysNanos = 500e6
	r.x.Sched.Block(sched.FirstThread)
	r.x.Sched.Next(0, 2e9, r.x.Src.Clock) // 2 s of CPU time, 0.5 s of it in the kernel
	got := r.read("1/stat", 4096)
	fields := strings.Fields(got)
	if len(fields) != 52 || !strings.HasSuffix(got, "\n") {
		t.Fatalf("stat has %d fields, want 52 and a newline: %q", len(fields), got)
	}
	for i, want := range map[int]string{0: "1", 1: "(app)", 2: "S", 3: "0", 13: "150", 14: "50", 19: "1", 23: "1324", 24: "18446744073709551615"} {
		if fields[i] != want {
			t.Errorf("stat field %d = %q, want %q (%q)", i+1, fields[i], want, got)
		}
	}
	host, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Skip(err)
	}
	// The host's line has as many fields (its comm is one word: the test binary's name).
	if n := len(strings.Fields(string(host))); n != 52 {
		t.Errorf("the host's stat has %d fields", n)
	}
}

func TestMeminfo(t *testing.T) {
	r := newRig(t, "")
	st := r.x.Frames.Stats()
	got := r.read("meminfo", 64)
	want := fmt.Sprintf("MemTotal:       %8d kB\nMemFree:        %8d kB\nMemAvailable:   %8d kB\n"+
		"Buffers:               0 kB\nCached:               40 kB\nSwapCached:            0 kB\n"+
		"SwapTotal:             0 kB\nSwapFree:              0 kB\nShmem:                40 kB\n",
		st.Total*4, st.Free*4, st.Free*4)
	if got != want {
		t.Errorf("meminfo =\n%s\nwant\n%s", got, want)
	}
	if st.Total-st.Free != 256 || st.Total < proctest.RAM/4096-64 {
		t.Errorf("frames: %+v", st)
	}
	checkLike(t, got, "/proc/meminfo")
}

// checkLike checks that every line of got has the form of the host's line of the same name.
func checkLike(t *testing.T, got, hostFile string) {
	host, err := os.ReadFile(hostFile)
	if err != nil {
		t.Skip(err)
	}
	shape := regexp.MustCompile(`[0-9]+`)
	hostLines := map[string]string{}
	for _, l := range strings.Split(string(host), "\n") {
		if k, _, ok := strings.Cut(l, ":"); ok {
			hostLines[k] = shape.ReplaceAllString(l, "N")
		}
	}
	for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		k, _, _ := strings.Cut(l, ":")
		h, ok := hostLines[k]
		// The widths differ only where a number is wider than its field.
		if !ok || strings.ReplaceAll(shape.ReplaceAllString(l, "N"), " ", "") != strings.ReplaceAll(h, " ", "") ||
			len(l) != len(hostLineOf(string(host), k)) && len(shape.FindString(l)) < 9 {
			t.Errorf("%q is not shaped as the host's %q", l, hostLineOf(string(host), k))
		}
	}
}

func hostLineOf(host, key string) string {
	for _, l := range strings.Split(host, "\n") {
		if k, _, _ := strings.Cut(l, ":"); k == key {
			return l
		}
	}
	return ""
}

func TestCpuinfoAMD64(t *testing.T) {
	r := newRig(t, "")
	c := &r.x.Src.Info.CPU
	c.Arch = procfs.ArchAMD64
	copy(c.Vendor[:], "AuthenticAMD")
	copy(c.Name[:], "  AMD EPYC   ")
	c.Family, c.Model, c.Stepping, c.Level = 26, 2, 1, 28
	c.TSCHz = 2_596_120_000
	c.PhysBits, c.VirtBits = 48, 48
	c.Leaf1EDX = 1<<0 | 1<<4 | 1<<25 | 1<<26
	c.Leaf1ECX = 1<<0 | 1<<28 | 1<<31
	c.Ext1EDX = 1<<11 | 1<<29
	c.Ext1ECX = 1 << 0
	c.Leaf7EBX = 1<<5 | 1<<29
	c.Leaf7ECX = 1 << 22
	got := r.read("cpuinfo", 100)
	block := func(i int) string {
		return fmt.Sprintf("processor\t: %d\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n"+
			"model name\t: AMD EPYC\nstepping\t: 1\ncpu MHz\t\t: 2596.120\nphysical id\t: 0\nsiblings\t: 2\n"+
			"core id\t\t: %d\ncpu cores\t: 2\nfpu\t\t: yes\nfpu_exception\t: yes\ncpuid level\t: 28\nwp\t\t: yes\n"+
			"flags\t\t: fpu tsc sse sse2 syscall lm pni avx hypervisor lahf_lm avx2 sha_ni rdpid\n"+
			"bogomips\t: 5192.24\nclflush size\t: 64\ncache_alignment\t: 64\n"+
			"address sizes\t: 48 bits physical, 48 bits virtual\npower management:\n\n", i, i)
	}
	if want := block(0) + block(1); got != want {
		t.Errorf("cpuinfo =\n%s\nwant\n%s", got, want)
	}
	if runtime.GOARCH == "amd64" {
		checkCpuinfoShape(t, got)
	}
}

func TestCpuinfoARM64(t *testing.T) {
	r := newRig(t, "")
	c := &r.x.Src.Info.CPU
	c.Arch = procfs.ArchARM64
	c.TimerHz = 62_500_000
	c.HWCap = 1<<0 | 1<<1 | 1<<3 | 1<<7 | 1<<8
	c.Implementer, c.Variant, c.Architecture, c.Part, c.Revision = 0x41, 0, 8, 0xd0c, 1
	got := r.read("cpuinfo", 7)
	block := func(i int) string {
		return fmt.Sprintf("processor\t: %d\nBogoMIPS\t: 125.00\nFeatures\t: fp asimd aes crc32 atomics\n"+
			"CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd0c\nCPU revision\t: 1\n\n", i)
	}
	if want := block(0) + block(1); got != want {
		t.Errorf("cpuinfo =\n%s\nwant\n%s", got, want)
	}
	if runtime.GOARCH == "arm64" {
		checkCpuinfoShape(t, got)
	}
}

// checkCpuinfoShape checks that the host's cpuinfo has each of our lines' names with the same
// separator.
func checkCpuinfoShape(t *testing.T, got string) {
	host, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skip(err)
	}
	for _, l := range strings.Split(got, "\n") {
		k, _, ok := strings.Cut(l, ": ")
		if ok && !strings.Contains(string(host), "\n"+k+": ") && !strings.HasPrefix(string(host), k+": ") {
			t.Errorf("the host's cpuinfo has no line starting %q", k+": ")
		}
	}
}

func TestFdinfo(t *testing.T) {
	r := newRig(t, "")
	rfd, wfd, errno := r.x.FDs.Pipe2(fs.O_CLOEXEC)
	if errno != 0 {
		t.Fatal(errno)
	}
	if got, want := r.read(fmt.Sprintf("1/fdinfo/%d", wfd), 512), "pos:\t0\nflags:\t02000001\nmnt_id:\t0\nino:\t1\n"; got != want {
		t.Errorf("fdinfo of a pipe's write end = %q, want %q", got, want)
	}
	f, _ := r.x.FDs.OpenFile(fs.Node{FS: 1, Ino: 33}, fs.O_RDWR|fs.O_APPEND)
	file, _ := r.x.FDs.File(f)
	file.Pos = 1234
	if got, want := r.read(fmt.Sprintf("1/fdinfo/%d", f), 512), "pos:\t1234\nflags:\t02002\nmnt_id:\t0\nino:\t33\n"; got != want {
		t.Errorf("fdinfo of a file = %q, want %q", got, want)
	}
	_ = rfd
}

func TestTree(t *testing.T) {
	r := newRig(t, "")
	r.x.AddThread(t, 9)
	r.x.AddThread(t, 4)
	rfd, _, _ := r.x.FDs.Pipe2(0)
	r.x.FDs.Close(rfd)
	for _, c := range []struct {
		path string
		want []string
	}{
		{"", []string{".", "..", "cpuinfo", "meminfo", "self", "sys", "thread-self", "uptime", "1"}},
		{"sys", []string{".", "..", "fs"}},
		{"sys/fs", []string{".", "..", "pipe-max-size"}},
		{"1", []string{".", "..", "cmdline", "comm", "cwd", "environ", "exe", "fd", "fdinfo", "ns", "root", "stat", "status", "task"}},
		{"1/task", []string{".", "..", "1", "4", "9"}},
		{"1/task/9", []string{".", "..", "cmdline", "comm", "cwd", "environ", "exe", "ns", "root", "stat", "status"}},
		{"1/ns", []string{".", "..", "cgroup", "ipc", "mnt", "net", "pid", "pid_for_children", "time", "time_for_children", "user", "uts"}},
		{"1/task/9/ns", []string{".", "..", "cgroup", "ipc", "mnt", "net", "pid", "pid_for_children", "time", "time_for_children", "user", "uts"}},
		{"1/fd", []string{".", "..", "0", "1", "2", "4"}},
		{"1/fdinfo", []string{".", "..", "0", "1", "2", "4"}},
	} {
		for _, bufLen := range []int{40, 64, 4096} {
			if got := r.list(c.path, bufLen); !slices.Equal(got, c.want) {
				t.Errorf("listing /proc/%s with %d bytes = %v, want %v", c.path, bufLen, got, c.want)
			}
		}
	}
	if _, _, errno := r.fs.ReadDir(r.ino("1"), 0, make([]byte, 20)); errno != abi.EINVAL {
		t.Errorf("ReadDir into 20 bytes = %d, want EINVAL", errno)
	}
	for _, c := range []struct {
		path  string
		errno int
	}{
		{"nope", abi.ENOENT}, {"2", abi.ENOENT}, {"01", abi.ENOENT}, {"+1", abi.ENOENT}, {"4", 0}, {"9/status", 0},
		{"9/task", abi.ENOENT}, {"9/fd", abi.ENOENT}, {"1/fd/3", abi.ENOENT}, {"1/fd/00", abi.ENOENT},
		{"1/fd/4", 0}, {"1/fd/1024", abi.ENOENT}, {"1/fd/99999999999", abi.ENOENT}, {"1/task/5", abi.ENOENT},
		{"meminfo/x", abi.ENOTDIR}, {"1/fd/4/x", abi.ENOTDIR}, {"self/x", abi.ENOTDIR}, {"1/task/9/..", 0},
	} {
		if _, errno := r.walk(c.path); errno != c.errno {
			t.Errorf("lookup %s = errno %d, want %d", c.path, errno, c.errno)
		}
	}
	// Modes, link counts, sizes.
	for _, c := range []struct {
		path  string
		mode  uint32
		nlink uint32
		size  int64
	}{
		{"", fs.S_IFDIR | 0o555, 4, 0},
		{"1", fs.S_IFDIR | 0o555, 6, 0},
		{"1/fd", fs.S_IFDIR | 0o500, 2, 4},
		{"1/task", fs.S_IFDIR | 0o555, 5, 0},
		{"1/task/4", fs.S_IFDIR | 0o555, 3, 0},
		{"1/ns", fs.S_IFDIR | 0o511, 2, 0},
		{"1/ns/pid_for_children", fs.S_IFLNK | 0o777, 1, 0},
		{"1/environ", fs.S_IFREG | 0o400, 1, 0},
		{"1/cmdline", fs.S_IFREG | 0o444, 1, 0},
		{"self", fs.S_IFLNK | 0o777, 1, 0},
		{"1/fd/0", fs.S_IFLNK | 0o700, 1, 64},
		{"1/fd/4", fs.S_IFLNK | 0o300, 1, 64},
		{"sys/fs/pipe-max-size", fs.S_IFREG | 0o444, 1, 0},
	} {
		st, errno := r.fs.Stat(r.ino(c.path))
		if errno != 0 || st.Mode != c.mode || st.Nlink != c.nlink || st.Size != c.size || st.Blksize != 1024 ||
			st.Mtime.Sec != 1_700_000_000 {
			t.Errorf("stat /proc/%s = %+v, %d; want mode %o nlink %d size %d", c.path, st, errno, c.mode, c.nlink, c.size)
		}
	}
	// A thread's files go with it; a descriptor's with the descriptor.
	task := r.ino("1/task/9/status")
	link := r.ino("1/fd/4")
	r.x.ExitThread(sched.FirstThread + 1)
	r.x.FDs.Close(4)
	for _, n := range []uint32{task, link} {
		if _, errno := r.fs.Stat(n); errno != abi.ENOENT {
			t.Errorf("stat of a gone file = %d, want ENOENT", errno)
		}
	}
	if got := r.list("1/task", 4096); !slices.Equal(got, []string{".", "..", "1", "4"}) {
		t.Errorf("tasks after 9 exited: %v", got)
	}
	// NameOf walks up as getcwd does.
	for _, path := range []string{"1/task/4", "1/fd", "sys/fs/pipe-max-size", "1"} {
		n := r.ino(path)
		up, _ := r.fs.DirOf(n)
		name := make([]byte, 32)
		k, errno := r.fs.NameOf(up, n, name)
		if want := path[strings.LastIndex(path, "/")+1:]; errno != 0 || string(name[:k]) != want {
			t.Errorf("NameOf /proc/%s = %q, %d", path, name[:k], errno)
		}
	}
}

func TestLinks(t *testing.T) {
	r := newRig(t, "")
	r.x.AddThread(t, 12)
	rfd, wfd, _ := r.x.FDs.Pipe2(0)
	efd, _ := r.x.FDs.Eventfd(0, 0)
	epfd, _ := r.x.FDs.EpollCreate(0)
	s0, s1, _ := r.x.FDs.Socketpair(0)
	file, _ := r.x.FDs.OpenFile(fs.Node{FS: 3, Ino: 77}, fs.O_RDONLY)
	r.x.Cwd = fs.Node{FS: 2, Ino: 5}
	text := func(path string, caller int32) (string, int) {
		buf := make([]byte, 64)
		k, errno := r.fs.Readlink(caller, r.ino(path), buf)
		return string(buf[:k]), errno
	}
	for _, c := range []struct {
		path, want string
		kind       int
	}{
		{"self", "1", procfs.TargetText},
		{"thread-self", "1/task/1", procfs.TargetText},
		{"1/exe", "/app", procfs.TargetText},
		{"1/task/12/exe", "/app", procfs.TargetText},
		{fmt.Sprintf("1/fd/%d", rfd), "pipe:[1]", procfs.TargetFD},
		{fmt.Sprintf("1/fd/%d", wfd), "pipe:[1]", procfs.TargetFD},
		{fmt.Sprintf("1/fd/%d", efd), "anon_inode:[eventfd]", procfs.TargetFD},
		{fmt.Sprintf("1/fd/%d", epfd), "anon_inode:[eventpoll]", procfs.TargetFD},
		{fmt.Sprintf("1/fd/%d", s0), "socket:[257]", procfs.TargetFD},
		{fmt.Sprintf("1/fd/%d", s1), "socket:[258]", procfs.TargetFD},
		{"1/fd/0", "/dev/console", procfs.TargetFD},
	} {
		got, errno := text(c.path, mainSlot)
		kind, _, _, _ := r.fs.Target(mainSlot, r.ino(c.path))
		if errno != 0 || got != c.want || kind != c.kind {
			t.Errorf("readlink /proc/%s = %q (kind %d), %d; want %q (kind %d)", c.path, got, kind, errno, c.want, c.kind)
		}
	}
	if got, _ := text("thread-self", mainSlot+1); got != "1/task/12" {
		t.Errorf("thread-self of tid 12 = %q", got)
	}
	if _, errno := text("thread-self", 0); errno != abi.ENOENT {
		t.Errorf("thread-self of an idle thread = %d, want ENOENT", errno)
	}
	for path, want := range map[string]fs.Node{
		"1/cwd": {FS: 2, Ino: 5}, "1/task/12/cwd": {FS: 2, Ino: 5}, fmt.Sprintf("1/fd/%d", file): {FS: 3, Ino: 77},
	} {
		kind, n, _, errno := r.fs.Target(mainSlot, r.ino(path))
		if kind != procfs.TargetNode || n != want || errno != 0 {
			t.Errorf("Target /proc/%s = %d, %+v, %d", path, kind, n, errno)
		}
		if _, errno := r.fs.Readlink(mainSlot, r.ino(path), make([]byte, 8)); errno != abi.EINVAL {
			t.Errorf("Readlink of a magic link to a file = %d, want EINVAL (the namespace's)", errno)
		}
	}
	if kind, _, _, _ := r.fs.Target(mainSlot, r.ino("1/root")); kind != procfs.TargetRoot {
		t.Errorf("root's target kind = %d", kind)
	}
	if n, errno := r.fs.LinkLen(mainSlot, r.ino("thread-self")); n != 8 || errno != 0 {
		t.Errorf("LinkLen thread-self = %d, %d", n, errno)
	}
	// A cut read.
	buf := make([]byte, 3)
	if k, _ := r.fs.Readlink(mainSlot, r.ino("1/exe"), buf); string(buf[:k]) != "/ap" {
		t.Errorf("readlink into 3 bytes = %q", buf[:k])
	}
}

func TestErrors(t *testing.T) {
	r := newRig(t, "")
	for path, want := range map[string]int{"1": abi.EISDIR, "self": abi.EINVAL} {
		if _, errno := r.fs.Read(mainSlot, r.ino(path), 0, make([]byte, 8), now, 0); errno != want {
			t.Errorf("read %s = %d, want %d", path, errno, want)
		}
	}
	if _, errno := r.fs.Read(mainSlot, r.ino("uptime"), -1, make([]byte, 8), now, 0); errno != abi.EINVAL {
		t.Errorf("read at -1 = %d", errno)
	}
	if got, _ := r.fs.Read(mainSlot, r.ino("uptime"), 1<<40, make([]byte, 8), now, 0); got != 0 {
		t.Errorf("read past the end = %d bytes", got)
	}
	if errno := r.fs.Write(r.ino("meminfo")); errno != abi.EIO {
		t.Errorf("write meminfo = %d, want EIO", errno)
	}
	if errno := r.fs.Write(r.ino("1/cmdline")); errno != abi.EINVAL {
		t.Errorf("write cmdline = %d, want EINVAL", errno)
	}
	for _, n := range []uint32{0, 1, 0xffffffff, 0x7f000000, procfs.RootIno | 5} {
		if m := r.fs.Mode(n); m != 0 {
			t.Errorf("Mode(%#x) = %o, want none", n, m)
		}
	}
}

// FuzzInodes asks the file system about arbitrary inode numbers and directory positions, and
// checks what must hold of every answer: a number names a file exactly when it has a mode;
// a directory lists entries that look up to the numbers listed and name themselves back
// (NameOf); reads, links and removals answer an errno of Linux's and never more than asked.
func FuzzInodes(f *testing.F) {
	f.Add(procfs.RootIno, uint64(0), uint16(64), int64(0))
	f.Add(uint32(11)<<24, uint64(5), uint16(40), int64(3))
	f.Add(uint32(22)<<24|4, uint64(70), uint16(1000), int64(1))
	f.Add(uint32(11)<<24|1<<23|7, uint64(2), uint16(32), int64(0))
	x := proctest.New(f, "A=1 -- x y")
	x.AddThread(f, 7)
	x.FDs.Pipe2(0)
	x.FDs.Eventfd(0, 0)
	var p procfs.FS
	p.Init(&x.Src)
	f.Fuzz(func(t *testing.T, n uint32, cookie uint64, bufLen uint16, off int64) {
		m := p.Mode(n)
		_, serr := p.Stat(n)
		if (m == 0) != (serr == abi.ENOENT) || serr != 0 && serr != abi.ENOENT {
			t.Fatalf("%#x: mode %o, stat %d", n, m, serr)
		}
		buf := make([]byte, bufLen%1024)
		k, next, errno := p.ReadDir(n, cookie, buf)
		if k > len(buf) || errno != 0 && errno != abi.ENOENT && errno != abi.ENOTDIR && errno != abi.EINVAL {
			t.Fatalf("%#x: ReadDir = %d, %d, %d", n, k, next, errno)
		}
		for b := buf[:k]; len(b) > 0; {
			reclen := binary.LittleEndian.Uint16(b[16:])
			ino := uint32(binary.LittleEndian.Uint64(b))
			name := b[19:reclen]
			name = name[:bytes.IndexByte(name, 0)]
			c, errno := p.Lookup(n, name)
			if errno != 0 || c != ino || fs.DirentType(p.Mode(c)) != b[18] {
				t.Fatalf("%#x: entry %q (%#x, type %d) looks up to %#x, %d", n, name, ino, b[18], c, errno)
			}
			if s := string(name); s != "." && s != ".." {
				back := make([]byte, 32)
				bk, errno := p.NameOf(n, c, back)
				if errno != 0 || string(back[:bk]) != s {
					t.Fatalf("%#x: NameOf %#x = %q, %d; listed as %q", n, c, back[:bk], errno, s)
				}
			}
			b = b[reclen:]
		}
		got, errno := p.Read(mainSlot, n, off, buf, now, 3)
		if got > len(buf) || errno != 0 && errno != abi.ENOENT && errno != abi.EISDIR && errno != abi.EINVAL {
			t.Fatalf("%#x: Read = %d, %d", n, got, errno)
		}
		if errno == 0 && m&fs.S_IFMT != fs.S_IFREG {
			t.Fatalf("%#x: Read of mode %o succeeded", n, m)
		}
		got, errno = p.Readlink(mainSlot, n, buf)
		if got > len(buf) || errno != 0 && m&fs.S_IFMT == fs.S_IFLNK && errno != abi.EINVAL {
			t.Fatalf("%#x: Readlink = %d, %d", n, got, errno)
		}
		if errno := p.Remove(n, buf[:got], false); errno == 0 {
			t.Fatalf("%#x: Remove succeeded", n)
		}
	})
}
