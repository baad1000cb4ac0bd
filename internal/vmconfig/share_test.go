package vmconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hugelgupf/vmtest/qemu"
	"github.com/unitrace/unitrace/boot"
	kfs "github.com/unitrace/unitrace/kernel/fs"
)

func TestParseShare(t *testing.T) {
	long := strings.Repeat("/ddd", kfs.PathMax/4)              // PathMax bytes
	longest := strings.Repeat("/ddd", kfs.PathMax/4-1) + "/dd" // PathMax-1 bytes
	tests := []struct {
		in   string
		want Share
		err  string // the whole message, or "" for none
	}{
		{"/h:/mnt/x", Share{Host: "/h", Guest: "/mnt/x"}, ""},
		{"/h:/mnt/x:ro", Share{Host: "/h", Guest: "/mnt/x", ReadOnly: true}, ""},
		{"rel/dir:/mnt//x/./", Share{Host: "rel/dir", Guest: "/mnt/x"}, ""},
		{"a:b:/mnt/x", Share{Host: "a:b", Guest: "/mnt/x"}, ""},
		{"a:b:/mnt/x:ro", Share{Host: "a:b", Guest: "/mnt/x", ReadOnly: true}, ""},
		{"/h,1:/mnt/a,b", Share{Host: "/h,1", Guest: "/mnt/a,b"}, ""},
		{"/h:/tmp", Share{Host: "/h", Guest: "/tmp"}, ""},
		{"/h:/dev/shared", Share{Host: "/h", Guest: "/dev/shared"}, ""},
		{"/h:" + longest, Share{Host: "/h", Guest: longest}, ""},
		{"/h:/" + strings.Repeat("n", kfs.NameMax), Share{Host: "/h", Guest: "/" + strings.Repeat("n", kfs.NameMax)}, ""},

		{"nocolon", Share{}, `"nocolon": not HOSTDIR:GUESTDIR or HOSTDIR:GUESTDIR:ro`},
		{":/mnt/x", Share{}, `":/mnt/x": HOSTDIR is empty`},
		{":/mnt/x:ro", Share{}, `":/mnt/x:ro": HOSTDIR is empty`},
		{"/h:/mnt/x:rw", Share{}, `"/h:/mnt/x:rw": unknown suffix ":rw": the only one is :ro`},
		{"/h:/mnt/x:", Share{}, `"/h:/mnt/x:": unknown suffix ":": the only one is :ro`},
		{"/h:/mnt/x:RO", Share{}, `"/h:/mnt/x:RO": unknown suffix ":RO": the only one is :ro`},
		{"/h:/mnt/x:ro:ro", Share{}, `"/h:/mnt/x:ro:ro": unknown suffix ":ro": the only one is :ro`},
		{"/h:ro", Share{}, `"/h:ro": GUESTDIR "ro" is not an absolute path`},
		{"/h:mnt/x", Share{}, `"/h:mnt/x": GUESTDIR "mnt/x" is not an absolute path`},
		{"/h:", Share{}, `"/h:": GUESTDIR "" is not an absolute path`},
		{"/h:/", Share{}, `"/h:/": GUESTDIR / would hide the root file system: share into a directory below it`},
		{"/h://", Share{}, `"/h://": GUESTDIR / would hide the root file system: share into a directory below it`},
		{"/h:/dev/", Share{}, `"/h:/dev/": GUESTDIR /dev would hide the kernel's devices`},
		{"/h:/mnt/../etc", Share{}, `"/h:/mnt/../etc": GUESTDIR "/mnt/../etc" has a .. component`},
		{"/h:/mnt/my dir", Share{}, `"/h:/mnt/my dir": GUESTDIR "/mnt/my dir" holds ' ': the guest command line cannot carry white space, control characters or double quotes`},
		{"/h:/mnt/\tx", Share{}, `"/h:/mnt/\tx": GUESTDIR "/mnt/\tx" holds '\t': the guest command line cannot carry white space, control characters or double quotes`},
		{"/h:/mnt/\u00a0x", Share{}, `"/h:/mnt/\u00a0x": GUESTDIR "/mnt/\u00a0x" holds '\u00a0': the guest command line cannot carry white space, control characters or double quotes`},
		{"/h:/mnt/\"x\"", Share{}, `"/h:/mnt/\"x\"": GUESTDIR "/mnt/\"x\"" holds '"': the guest command line cannot carry white space, control characters or double quotes`},
		{"/h:/mnt/\x7f", Share{}, `"/h:/mnt/\x7f": GUESTDIR "/mnt/\x7f" holds '\x7f': the guest command line cannot carry white space, control characters or double quotes`},
		{"/h:" + long, Share{}, `"/h:` + long + `": GUESTDIR is 4096 bytes: the kernel's paths are shorter than 4096`},
		{"/h:/mnt/" + strings.Repeat("n", kfs.NameMax+1), Share{},
			`"/h:/mnt/` + strings.Repeat("n", kfs.NameMax+1) + `": GUESTDIR has a 256-byte component "nnnnnnnnnnnnnnnn"...: the kernel's names have at most 255 bytes`},
	}
	for _, tt := range tests {
		got, err := ParseShare(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%q: error %v\nwant %s", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestShareFlag(t *testing.T) {
	var f ShareFlag
	for _, s := range []string{"a:/x", "b:/y:ro"} {
		if err := f.Set(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Set("c:/"); err == nil || err.Error() != "GUESTDIR / would hide the root file system: share into a directory below it" {
		t.Errorf("c:/: error %v", err)
	}
	if got := f.String(); got != "a:/x b:/y:ro" || len(f) != 2 {
		t.Errorf("%d shares %q", len(f), got)
	}
}

func TestResolveHost(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if err := os.Mkdir("sub", 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := Share{Host: "sub", Guest: "/x", ReadOnly: true}.ResolveHost()
	if want := (Share{Host: filepath.Join(dir, "sub"), Guest: "/x", ReadOnly: true}); err != nil || got != want {
		t.Errorf("sub: %+v, %v; want %+v", got, err, want)
	}
	for _, tt := range []struct{ host, err string }{
		{"missing", "-share missing:/x: missing: no such file or directory"},
		{file, "-share " + file + ":/x: " + file + " is not a directory"},
	} {
		if _, err := (Share{Host: tt.host, Guest: "/x"}).ResolveHost(); err == nil || err.Error() != tt.err {
			t.Errorf("%s: error %v\nwant %s", tt.host, err, tt.err)
		}
	}
}

func TestCheckShares(t *testing.T) {
	sh := func(host, guest string) Share { return Share{Host: host, Guest: guest} }
	var nine []Share
	for i := range MaxShares + 1 {
		nine = append(nine, sh("/h", "/mnt/"+string(rune('a'+i))))
	}
	tests := []struct {
		shares []Share
		packed []string
		err    string
	}{
		{nil, []string{"/data"}, ""},
		{nine[:MaxShares], nil, ""},
		{[]Share{sh("/h", "/mnt/a"), sh("/h", "/mnt/ab"), sh("/h", "/mnt/b")}, []string{"/mnt/abc", "/data"}, ""},
		{nine, nil, "-share: 9 shared directories, the kernel mounts at most 8"},
		{[]Share{sh("/a", "/mnt/x"), {Host: "/b", Guest: "/mnt/x", ReadOnly: true}}, nil, "-share /a:/mnt/x and -share /b:/mnt/x:ro: both mount at /mnt/x"},
		{[]Share{sh("/a", "/mnt"), sh("/b", "/mnt/x")}, nil, "-share /a:/mnt and -share /b:/mnt/x: /mnt/x is inside /mnt, and shares cannot nest"},
		{[]Share{sh("/a", "/mnt/x"), sh("/b", "/mnt")}, nil, "-share /a:/mnt/x and -share /b:/mnt: /mnt/x is inside /mnt, and shares cannot nest"},
		{[]Share{sh("/a", "/data")}, []string{"/data"}, "-share /a:/data: -files puts packed files at /data too"},
		{[]Share{sh("/a", "/data/sub")}, []string{"/opt", "/data"}, "-share /a:/data/sub: /data/sub is inside /data, where -files puts packed files, and the two cannot nest"},
		{[]Share{sh("/a", "/data")}, []string{"/data/sub"}, "-share /a:/data: -files puts packed files at /data/sub, inside the share, and the two cannot nest"},
	}
	for _, tt := range tests {
		err := CheckShares(tt.shares, tt.packed)
		if got := errText(err); got != tt.err {
			t.Errorf("%v %q: error %q\nwant %q", tt.shares, tt.packed, got, tt.err)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestShareCmdline: the exact QEMU command line of shares, one and two, read-only, on both
// architectures, with the kernel options after the caller's words.
func TestShareCmdline(t *testing.T) {
	t.Setenv("VMTEST_QEMU_APPEND", "")
	t.Setenv("VMTEST_TIMEOUT", "")
	one := []Share{{Host: "/tmp/x", Guest: "/mnt/x"}}
	two := []Share{{Host: "/srv/data", Guest: "/data", ReadOnly: true}, {Host: "/home/u/a,b", Guest: "/mnt/out"}}
	const amd64Base = "qemu-system-x86_64 -M microvm,isa-serial=on,rtc=on,pit=on,auto-kernel-cmdline=off -accel tcg -cpu max -m 256M -smp 1" +
		" -nodefaults -no-reboot -display none -serial stdio -device isa-debug-exit,iobase=0xf4,iosize=0x04"
	const arm64Base = "qemu-system-aarch64 -M virt -accel tcg -cpu max -m 256M -smp 1 -nodefaults -no-reboot -display none -serial stdio" +
		" -semihosting-config enable=on,target=native"
	tests := []struct {
		name string
		c    Config
		want []string
	}{
		{"amd64 one", Config{Kernel: "k.elf", Shares: one},
			append(strings.Fields(amd64Base),
				"-fsdev", "local,id=unitrace-share0,path=/tmp/x,security_model=none",
				"-device", "virtio-9p-device,fsdev=unitrace-share0,mount_tag=share0",
				"-kernel", "k.elf", "-append", "unitrace.share=share0:/mnt/x --")},
		{"amd64 two, ro, with env and args", Config{Kernel: "k.elf", Shares: two, Env: []string{"A=1"}, Args: []string{"x"}},
			append(strings.Fields(amd64Base),
				"-fsdev", "local,id=unitrace-share0,path=/srv/data,security_model=none,readonly=on",
				"-device", "virtio-9p-device,fsdev=unitrace-share0,mount_tag=share0",
				"-fsdev", "local,id=unitrace-share1,path=/home/u/a,,b,security_model=none",
				"-device", "virtio-9p-device,fsdev=unitrace-share1,mount_tag=share1",
				"-kernel", "k.elf", "-append", "A=1 unitrace.share=share0:/data:ro unitrace.share=share1:/mnt/out -- x")},
		{"arm64 one", Config{Arch: qemu.ArchArm64, Kernel: "k.elf", Shares: one},
			append(strings.Fields(arm64Base),
				"-fsdev", "local,id=unitrace-share0,path=/tmp/x,security_model=none",
				"-device", "virtio-9p-device,fsdev=unitrace-share0,mount_tag=share0",
				"-kernel", "k.elf", "-append", "unitrace.share=share0:/mnt/x --")},
		{"arm64 gicv3 two, ro", Config{Arch: qemu.ArchArm64, Machine: "virt-gicv3", Kernel: "k.elf", Shares: two},
			append(strings.Fields(strings.Replace(arm64Base, "-M virt", "-M virt,gic-version=3", 1)),
				"-fsdev", "local,id=unitrace-share0,path=/srv/data,security_model=none,readonly=on",
				"-device", "virtio-9p-device,fsdev=unitrace-share0,mount_tag=share0",
				"-fsdev", "local,id=unitrace-share1,path=/home/u/a,,b,security_model=none",
				"-device", "virtio-9p-device,fsdev=unitrace-share1,mount_tag=share1",
				"-kernel", "k.elf", "-append", "unitrace.share=share0:/data:ro unitrace.share=share1:/mnt/out --")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.c.Cmdline()
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestShareConfigErrors(t *testing.T) {
	one := []Share{{Host: "/tmp/x", Guest: "/mnt/x"}}
	tests := []struct {
		c   Config
		err string
	}{
		{Config{Kernel: "k", Machine: "q35", Shares: one}, `-share needs a virtio-mmio bus: machine "q35" has none (use -machine microvm)`},
		{Config{Kernel: "k", Machine: "pc", Shares: one}, `-share needs a virtio-mmio bus: machine "pc" has none (use -machine microvm)`},
		{Config{Kernel: "k", Shares: []Share{{Host: "rel", Guest: "/mnt/x"}}}, "-share rel:/mnt/x: the host directory is not an absolute path"},
		{Config{Kernel: "k", Shares: []Share{{Host: "/h", Guest: "/"}}}, "-share /h:/: GUESTDIR / would hide the root file system: share into a directory below it"},
		{Config{Kernel: "k", Shares: []Share{{Host: "/h", Guest: "/mnt/x/"}}}, `-share /h:/mnt/x/: GUESTDIR "/mnt/x/" is not clean: "/mnt/x"`},
		{Config{Kernel: "k", Shares: append(one, one...)}, "-share /tmp/x:/mnt/x and -share /tmp/x:/mnt/x: both mount at /mnt/x"},
	}
	for _, tt := range tests {
		_, err := tt.c.Cmdline()
		if got := errText(err); got != tt.err {
			t.Errorf("%+v: error %q\nwant %q", tt.c.Shares, got, tt.err)
		}
	}
}

// TestShareOverlaps: a directory overlaps a share at, inside or around its GUESTDIR, not beside it.
func TestShareOverlaps(t *testing.T) {
	s := Share{Host: "/h", Guest: "/a/b"}
	for dir, want := range map[string]bool{"/a/b": true, "/a/b/c": true, "/a": true, "/a/bc": false, "/a/c": false, "/x": false} {
		if got := s.Overlaps(dir); got != want {
			t.Errorf("%v.Overlaps(%q) = %v, want %v", s, dir, got, want)
		}
	}
}

// The kernel reads back each option word the launcher writes (boot.ParseShare).
func TestShareOptionsParseBack(t *testing.T) {
	shares := []Share{{Host: "/srv/a", Guest: "/data", ReadOnly: true}, {Host: "/srv/b", Guest: "/mnt/out"}}
	for i, w := range shareOptions(shares) {
		got, ok := boot.ParseShare(w)
		if !ok || got.Tag != ShareTag(i) || got.Dir != shares[i].Guest || got.ReadOnly != shares[i].ReadOnly {
			t.Errorf("boot.ParseShare(%q) = %+v, %v; want the tag %s, %s, read-only %v", w, got, ok, ShareTag(i), shares[i].Guest, shares[i].ReadOnly)
		}
	}
}
