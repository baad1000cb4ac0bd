//go:build ignore

// mksysnames writes the Linux system call name tables amd64names.go and
// arm64names.go. The numbers and names come from the Go toolchain's own
// tables ($GOROOT/src/syscall/zsysnum_linux_{amd64,arm64}.go), which stop
// years back, plus the hand-kept list of newer calls below.
//
//	go run mksysnames.go [-goroot DIR] [-o DIR]
//
// Each table is one string constant holding the names back to back and an
// array of offsets into it: static data that needs no package
// initialisation, so the kernel can name system calls before init runs.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

type sysnum struct {
	nr   int
	name string
}

// common lists the calls with the numbers Linux has given every
// architecture alike since 424 (pidfd_send_signal, Linux 5.1), from
// include/uapi/asm-generic/unistd.h and arch/x86/entry/syscalls/syscall_64.tbl
// as of Linux 6.17.
var common = []sysnum{
	{424, "pidfd_send_signal"}, {425, "io_uring_setup"}, {426, "io_uring_enter"},
	{427, "io_uring_register"}, {428, "open_tree"}, {429, "move_mount"}, {430, "fsopen"},
	{431, "fsconfig"}, {432, "fsmount"}, {433, "fspick"}, {434, "pidfd_open"}, {435, "clone3"},
	{436, "close_range"}, {437, "openat2"}, {438, "pidfd_getfd"}, {439, "faccessat2"},
	{440, "process_madvise"}, {441, "epoll_pwait2"}, {442, "mount_setattr"},
	{443, "quotactl_fd"}, {444, "landlock_create_ruleset"}, {445, "landlock_add_rule"},
	{446, "landlock_restrict_self"}, {447, "memfd_secret"}, {448, "process_mrelease"},
	{449, "futex_waitv"}, {450, "set_mempolicy_home_node"}, {451, "cachestat"},
	{452, "fchmodat2"}, {453, "map_shadow_stack"}, {454, "futex_wake"}, {455, "futex_wait"},
	{456, "futex_requeue"}, {457, "statmount"}, {458, "listmount"},
	{459, "lsm_get_self_attr"}, {460, "lsm_set_self_attr"}, {461, "lsm_list_modules"},
	{462, "mseal"}, {463, "setxattrat"}, {464, "getxattrat"}, {465, "listxattrat"},
	{466, "removexattrat"}, {467, "open_tree_attr"}, {468, "file_getattr"},
	{469, "file_setattr"},
}

// arch describes one table: where the toolchain's numbers are, what to
// correct in them, and the calls they lack below 424.
type arch struct {
	goarch string
	// rename maps the toolchain's name to Linux's where they differ:
	// asm-generic calls 79 newfstatat on 64-bit machines.
	rename map[string]string
	// drop lists toolchain constants that are not system calls of this
	// architecture: the start of the (empty) arch-specific range, and
	// sync_file_range2, which shares 84 with arm64's sync_file_range.
	drop []string
	// missing lists the calls between the toolchain's last one and 424,
	// from syscall_64.tbl (amd64) and asm-generic/unistd.h (arm64). The
	// asm-generic calls 403-423 are for 32-bit machines only.
	missing []sysnum
}

var arches = []arch{
	{
		goarch: "amd64",
		missing: []sysnum{
			{303, "name_to_handle_at"}, {304, "open_by_handle_at"}, {305, "clock_adjtime"},
			{306, "syncfs"}, {307, "sendmmsg"}, {308, "setns"}, {309, "getcpu"},
			{310, "process_vm_readv"}, {311, "process_vm_writev"}, {312, "kcmp"},
			{313, "finit_module"}, {314, "sched_setattr"}, {315, "sched_getattr"},
			{316, "renameat2"}, {317, "seccomp"}, {318, "getrandom"}, {319, "memfd_create"},
			{320, "kexec_file_load"}, {321, "bpf"}, {322, "execveat"}, {323, "userfaultfd"},
			{324, "membarrier"}, {325, "mlock2"}, {326, "copy_file_range"}, {327, "preadv2"},
			{328, "pwritev2"}, {329, "pkey_mprotect"}, {330, "pkey_alloc"}, {331, "pkey_free"},
			{332, "statx"}, {333, "io_pgetevents"}, {334, "rseq"}, {335, "uretprobe"},
		},
	},
	{
		goarch: "arm64",
		rename: map[string]string{"fstatat": "newfstatat"},
		drop:   []string{"arch_specific_syscall", "sync_file_range2"},
		missing: []sysnum{
			{282, "userfaultfd"}, {283, "membarrier"}, {284, "mlock2"}, {285, "copy_file_range"},
			{286, "preadv2"}, {287, "pwritev2"}, {288, "pkey_mprotect"}, {289, "pkey_alloc"},
			{290, "pkey_free"}, {291, "statx"}, {292, "io_pgetevents"}, {293, "rseq"},
			{294, "kexec_file_load"},
		},
	},
}

var constRE = regexp.MustCompile(`^\s*SYS_([A-Z0-9_]+)\s*=\s*([0-9]+)\s*$`)

func main() {
	log.SetFlags(0)
	log.SetPrefix("mksysnames: ")
	goroot := flag.String("goroot", "", "Go root to read src/syscall from (default: go env GOROOT)")
	out := flag.String("o", ".", "directory to write the tables into")
	flag.Parse()
	if *goroot == "" {
		b, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			log.Fatalf("go env GOROOT: %v", err)
		}
		*goroot = strings.TrimSpace(string(b))
	}
	for _, a := range arches {
		src := filepath.Join(*goroot, "src", "syscall", "zsysnum_linux_"+a.goarch+".go")
		text, err := os.ReadFile(src)
		if err != nil {
			log.Fatal(err)
		}
		names, err := table(a, text)
		if err != nil {
			log.Fatalf("%s: %v", src, err)
		}
		code, err := format.Source(generate(a.goarch, names))
		if err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(*out, a.goarch+"names.go"), code, 0o666); err != nil {
			log.Fatal(err)
		}
	}
}

// table returns the names by number: the toolchain's, corrected, and the
// missing ones. A hand-kept entry that the toolchain already has must agree
// with it, so the list can stay when the toolchain catches up.
func table(a arch, zsysnum []byte) ([]string, error) {
	byNr := map[int]string{}
	add := func(nr int, name string) error {
		if old, ok := byNr[nr]; ok && old != name {
			return fmt.Errorf("%s: %d is both %s and %s", a.goarch, nr, old, name)
		}
		byNr[nr] = name
		return nil
	}
	for _, line := range strings.Split(string(zsysnum), "\n") {
		m := constRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name := strings.ToLower(m[1])
		if slices.Contains(a.drop, name) {
			continue
		}
		if to, ok := a.rename[name]; ok {
			name = to
		}
		nr, err := strconv.Atoi(m[2])
		if err != nil {
			return nil, err
		}
		if err := add(nr, name); err != nil {
			return nil, err
		}
	}
	if len(byNr) < 250 {
		return nil, fmt.Errorf("only %d system calls found", len(byNr))
	}
	for _, s := range append(slices.Clone(a.missing), common...) {
		if err := add(s.nr, s.name); err != nil {
			return nil, err
		}
	}
	names := make([]string, slices.Max(mapsKeys(byNr))+1)
	for nr, name := range byNr {
		names[nr] = name
	}
	return names, nil
}

func mapsKeys(m map[int]string) []int {
	var keys []int
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

func generate(goarch string, names []string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by mksysnames.go; DO NOT EDIT.\n\n")
	fmt.Fprintf(&b, "package sysnames\n\n")
	fmt.Fprintf(&b, "// %sNames holds the %s system call names back to back: name nr is\n", goarch, goarch)
	fmt.Fprintf(&b, "// %sNames[%sIndex[nr]:%sIndex[nr+1]], empty for an unassigned number.\n", goarch, goarch, goarch)
	fmt.Fprintf(&b, "const %sNames = \"\" +\n", goarch)
	var index []int
	off := 0
	for nr, name := range names {
		index = append(index, off)
		off += len(name)
		if name == "" {
			continue
		}
		sep := " +"
		if nr == len(names)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "\t%q%s // %d\n", name, sep, nr)
	}
	index = append(index, off)
	fmt.Fprintf(&b, "\nvar %sIndex = [%d]uint16{", goarch, len(index))
	for i, v := range index {
		if i%12 == 0 {
			b.WriteString("\n\t")
		} else {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%d,", v)
	}
	b.WriteString("\n}\n")
	return b.Bytes()
}
