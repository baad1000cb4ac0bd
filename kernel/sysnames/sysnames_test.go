package sysnames

import (
	"bytes"
	"debug/elf"
	"debug/gosym"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestNames(t *testing.T) {
	tests := []struct {
		arch string
		fn   func(uint64) string
		nr   uint64
		want string
	}{
		{"amd64", AMD64, 0, "read"},
		{"amd64", AMD64, 13, "rt_sigaction"},
		{"amd64", AMD64, 158, "arch_prctl"},
		{"amd64", AMD64, 202, "futex"},
		{"amd64", AMD64, 281, "epoll_pwait"},
		{"amd64", AMD64, 302, "prlimit64"},         // the toolchain's last
		{"amd64", AMD64, 303, "name_to_handle_at"}, // the hand-kept list's first
		{"amd64", AMD64, 334, "rseq"},
		{"amd64", AMD64, 335, "uretprobe"},
		{"amd64", AMD64, 336, ""},
		{"amd64", AMD64, 423, ""},
		{"amd64", AMD64, 435, "clone3"},
		{"amd64", AMD64, 462, "mseal"},
		{"amd64", AMD64, 469, "file_setattr"},
		{"amd64", AMD64, 470, ""},
		{"amd64", AMD64, 1 << 32, ""},
		{"amd64", AMD64, ^uint64(0), ""},
		{"arm64", ARM64, 0, "io_setup"},
		{"arm64", ARM64, 22, "epoll_pwait"},
		{"arm64", ARM64, 79, "newfstatat"},
		{"arm64", ARM64, 80, "fstat"},
		{"arm64", ARM64, 84, "sync_file_range"},
		{"arm64", ARM64, 98, "futex"},
		{"arm64", ARM64, 134, "rt_sigaction"},
		{"arm64", ARM64, 222, "mmap"},
		{"arm64", ARM64, 243, "recvmmsg"},
		{"arm64", ARM64, 244, ""}, // arch-specific range, empty on arm64
		{"arm64", ARM64, 259, ""},
		{"arm64", ARM64, 260, "wait4"},
		{"arm64", ARM64, 281, "execveat"}, // the toolchain's last
		{"arm64", ARM64, 282, "userfaultfd"},
		{"arm64", ARM64, 293, "rseq"},
		{"arm64", ARM64, 294, "kexec_file_load"},
		{"arm64", ARM64, 295, ""},
		{"arm64", ARM64, 420, ""}, // 32-bit only
		{"arm64", ARM64, 435, "clone3"},
		{"arm64", ARM64, 462, "mseal"},
		{"arm64", ARM64, 469, "file_setattr"},
		{"arm64", ARM64, 470, ""},
		{"arm64", ARM64, ^uint64(0), ""},
	}
	for _, tt := range tests {
		if got := tt.fn(tt.nr); got != tt.want {
			t.Errorf("%s(%d) = %q, want %q", tt.arch, tt.nr, got, tt.want)
		}
	}
}

// TestTablesWellFormed checks every entry: Linux's lower-case names, no name
// twice, offsets in order, and numbers up to at least 462.
func TestTablesWellFormed(t *testing.T) {
	for _, tab := range []struct {
		arch  string
		names string
		index []uint16
		fn    func(uint64) string
	}{
		{"amd64", amd64Names, amd64Index[:], AMD64},
		{"arm64", arm64Names, arm64Index[:], ARM64},
	} {
		if n := len(tab.index) - 1; n < 463 {
			t.Errorf("%s: table ends at %d, want at least 462", tab.arch, n-1)
		}
		if int(tab.index[len(tab.index)-1]) != len(tab.names) {
			t.Errorf("%s: index ends at %d, names are %d bytes", tab.arch, tab.index[len(tab.index)-1], len(tab.names))
		}
		seen := map[string]uint64{}
		count := 0
		for nr := uint64(0); nr+1 < uint64(len(tab.index)); nr++ {
			if tab.index[nr] > tab.index[nr+1] {
				t.Errorf("%s: index goes backwards at %d", tab.arch, nr)
			}
			name := tab.fn(nr)
			if name == "" {
				continue
			}
			count++
			if strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
				t.Errorf("%s(%d) = %q: not a Linux system call name", tab.arch, nr, name)
			}
			if prev, ok := seen[name]; ok {
				t.Errorf("%s: %q is both %d and %d", tab.arch, name, prev, nr)
			}
			seen[name] = nr
		}
		if count < 300 {
			t.Errorf("%s: only %d names", tab.arch, count)
		}
	}
}

func TestNoAllocation(t *testing.T) {
	n := 0
	allocs := testing.AllocsPerRun(10, func() {
		for nr := uint64(0); nr < 500; nr++ {
			n += len(AMD64(nr)) + len(ARM64(nr))
		}
	})
	if allocs != 0 {
		t.Errorf("lookups allocate %v times per run", allocs)
	}
	if n == 0 {
		t.Error("no names")
	}
}

// TestNoInitCode checks that the tables are static data: the package has no
// init function in the test binary (found through its pclntab, which go
// test does not strip), so the kernel may use it before package init runs.
func TestNoInitCode(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Skipf("not an ELF test binary: %v", err)
	}
	defer f.Close()
	sec := f.Section(".gopclntab")
	text := f.Section(".text")
	if sec == nil || text == nil {
		t.Skip("no .gopclntab or .text")
	}
	data, err := sec.Data()
	if err != nil {
		t.Fatal(err)
	}
	tab, err := gosym.NewTable(nil, gosym.NewLineTable(data, text.Addr))
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, fn := range tab.Funcs {
		if strings.HasPrefix(fn.Name, "github.com/unitrace/unitrace/kernel/sysnames.") {
			found++
			if strings.HasSuffix(fn.Name, ".init") || strings.Contains(fn.Name, ".init.") {
				t.Errorf("package initialisation code: %s", fn.Name)
			}
		}
	}
	if found == 0 {
		t.Error("no function of the package in the test binary")
	}
}

// TestGenerated reruns the generator and fails if the checked-in tables
// differ from its output.
func TestGenerated(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	cmd := exec.Command(gobin, "run", "mksysnames.go", "-o", dir)
	// The generator runs on the host, whatever this test was built for.
	cmd.Env = append(os.Environ(), "GOOS=", "GOARCH=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run mksysnames.go: %v\n%s", err, out)
	}
	for _, name := range []string{"amd64names.go", "arm64names.go"} {
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./kernel/sysnames", name)
		}
	}
}
