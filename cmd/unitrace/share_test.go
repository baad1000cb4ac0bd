package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/internal/vmconfig"
)

// TestShareFlag: -share on run and test becomes the VM's shares, HOSTDIR made absolute, in
// command-line order, and their QEMU options and kernel options.
func TestShareFlag(t *testing.T) {
	abs, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	want := []vmconfig.Share{{Host: abs, Guest: "/mnt/a"}, {Host: abs, Guest: "/mnt/b", ReadOnly: true}}
	run, err := parseRun("run", []string{"-share", "testdata:/mnt/a/", "app", "-share", abs + ":/mnt/b:ro"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	test, err := parseTest([]string{"-share", "testdata:/mnt/a", "-share", "./testdata:/mnt/b:ro", "os"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []runOptions{run, test.runOptions} {
		g, err := o.guest()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(g.cfg.Shares, want) {
			t.Errorf("shares %+v, want %+v", g.cfg.Shares, want)
		}
		args, err := g.cfg.Cmdline()
		if err != nil {
			t.Fatal(err)
		}
		line := strings.Join(args, " ")
		for _, w := range []string{
			"-fsdev local,id=unitrace-share0,path=" + abs + ",security_model=none -device virtio-9p-device,fsdev=unitrace-share0,mount_tag=share0",
			"-fsdev local,id=unitrace-share1,path=" + abs + ",security_model=none,readonly=on -device virtio-9p-device,fsdev=unitrace-share1,mount_tag=share1",
			"unitrace.share=share0:/mnt/a unitrace.share=share1:/mnt/b:ro --",
		} {
			if !strings.Contains(line, w) {
				t.Errorf("%s\nlacks %s", line, w)
			}
		}
	}
}

// TestShareErrors: what run and test say about bad -share flags, with status 2 before anything
// is built.
func TestShareErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	nine := []string{}
	for i := range vmconfig.MaxShares + 1 {
		nine = append(nine, "-share", dir+":/mnt/"+string(rune('a'+i)))
	}
	tests := []struct {
		args []string
		msg  string // the first line of standard error
	}{
		{[]string{"-share", "nocolon"},
			`invalid value "nocolon" for flag -share: not HOSTDIR:GUESTDIR or HOSTDIR:GUESTDIR:ro`},
		{[]string{"-share", dir + ":/mnt/x:rw"},
			`invalid value "` + dir + `:/mnt/x:rw" for flag -share: unknown suffix ":rw": the only one is :ro`},
		{[]string{"-share", dir + ":mnt"},
			`invalid value "` + dir + `:mnt" for flag -share: GUESTDIR "mnt" is not an absolute path`},
		{[]string{"-share", dir + ":/"},
			`invalid value "` + dir + `:/" for flag -share: GUESTDIR / would hide the root file system: share into a directory below it`},
		{[]string{"-share", dir + ":/mnt/a b"},
			`invalid value "` + dir + `:/mnt/a b" for flag -share: GUESTDIR "/mnt/a b" holds ' ': the guest command line cannot carry white space, control characters or double quotes`},
		{[]string{"-share", filepath.Join(dir, "missing") + ":/mnt/x"},
			"unitrace CMD: -share " + dir + "/missing:/mnt/x: " + dir + "/missing: no such file or directory"},
		{[]string{"-share", file + ":/mnt/x"},
			"unitrace CMD: -share " + file + ":/mnt/x: " + file + " is not a directory"},
		{[]string{"-share", dir + ":/mnt/x", "-share", dir + ":/mnt/x:ro"},
			"unitrace CMD: -share " + dir + ":/mnt/x and -share " + dir + ":/mnt/x:ro: both mount at /mnt/x"},
		{[]string{"-share", dir + ":/mnt", "-share", dir + ":/mnt/x"},
			"unitrace CMD: -share " + dir + ":/mnt and -share " + dir + ":/mnt/x: /mnt/x is inside /mnt, and shares cannot nest"},
		{nine, "unitrace CMD: -share: 9 shared directories, the kernel mounts at most 8"},
		{[]string{"-machine", "q35", "-share", dir + ":/mnt/x"},
			`unitrace CMD: -share needs a virtio-mmio bus: machine "q35" has none (use -machine microvm)`},
	}
	for _, cmd := range []string{"run", "test"} {
		for _, tt := range tests {
			args := append([]string{cmd}, tt.args...)
			args = append(args, "app")
			_, errs, st := runCLI(t, args...)
			first, _, _ := strings.Cut(errs, "\n")
			if want := strings.ReplaceAll(tt.msg, "CMD", cmd); st != 2 || first != want {
				t.Errorf("%q: status %d, stderr:\n%s\nwant status 2 and first line\n%s", args, st, errs, want)
			}
		}
	}
}

// TestShareAndFiles: run refuses a share and packed files at one GUESTDIR or one inside the other.
func TestShareAndFiles(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		files, share, msg string
	}{
		{dir + ":/data", dir + ":/data", "-share " + dir + ":/data: -files puts packed files at /data too"},
		{dir + ":/data", dir + ":/data/out", "-share " + dir + ":/data/out: /data/out is inside /data, where -files puts packed files, and the two cannot nest"},
		{dir + ":/data/in", dir + ":/data:ro", "-share " + dir + ":/data:ro: -files puts packed files at /data/in, inside the share, and the two cannot nest"},
	} {
		_, err := parseRun("run", []string{"-files", tt.files, "-share", tt.share, "app"}, &bytes.Buffer{})
		if err == nil || err.Error() != tt.msg {
			t.Errorf("-files %s -share %s: error %v\nwant %s", tt.files, tt.share, err, tt.msg)
		}
	}
	if _, err := parseRun("run", []string{"-files", dir + ":/data", "-share", dir + ":/database", "app"}, &bytes.Buffer{}); err != nil {
		t.Errorf("/data and /database: %v", err)
	}
}
