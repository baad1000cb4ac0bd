package memfs

import (
	"bytes"
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
)

func TestXattr(t *testing.T) {
	f, p := newFS(t, Capacity{Bytes: 1 << 20, Inodes: 10})
	ino := create(t, f, p, RootIno, "a")
	if _, errno := f.GetXattr(ino, []byte("user.x")); errno != abi.ENODATA {
		t.Fatalf("get of a missing attribute: %d, want ENODATA", errno)
	}
	if errno := f.SetXattr(p, ino, []byte("user.x"), []byte("1"), false, true, now); errno != abi.ENODATA {
		t.Fatalf("XATTR_REPLACE of a missing attribute: %d, want ENODATA", errno)
	}
	before := p.InUse()
	must(t, f.SetXattr(p, ino, []byte("user.x"), []byte("one"), true, false, now))
	must(t, f.SetXattr(p, ino, []byte("trusted.y"), nil, false, false, now))
	must(t, f.SetXattr(p, ino, []byte("user.z"), []byte("zz"), false, false, now))
	if p.InUse() != before+1 {
		t.Fatalf("attributes take %d pages, want 1", p.InUse()-before)
	}
	if errno := f.SetXattr(p, ino, []byte("user.x"), []byte("1"), true, false, now); errno != abi.EEXIST {
		t.Fatalf("XATTR_CREATE of an existing attribute: %d, want EEXIST", errno)
	}
	must(t, f.SetXattr(p, ino, []byte("user.x"), []byte("uno"), false, true, now))
	v, errno := f.GetXattr(ino, []byte("user.x"))
	if errno != 0 || string(v) != "uno" {
		t.Fatalf("get = %q, %d", v, errno)
	}
	if v, errno := f.GetXattr(ino, []byte("trusted.y")); errno != 0 || len(v) != 0 {
		t.Fatalf("empty value = %q, %d", v, errno)
	}
	n, _ := f.ListXattr(ino, nil)
	buf := make([]byte, n)
	if got, _ := f.ListXattr(ino, buf); got != n || !bytes.Equal(buf, []byte("trusted.y\x00user.z\x00user.x\x00")) {
		t.Fatalf("list = %q (%d)", buf, got)
	}
	if errno := f.RemoveXattr(p, ino, []byte("user.q"), now); errno != abi.ENODATA {
		t.Fatalf("remove of a missing attribute: %d, want ENODATA", errno)
	}
	// Full: one page holds them all.
	big := make([]byte, PageSize)
	if errno := f.SetXattr(p, ino, []byte("user.big"), big, false, false, now); errno != abi.ENOSPC {
		t.Fatalf("a value larger than the page: %d, want ENOSPC", errno)
	}
	room := PageSize - 1 - (3 + 9) - (3 + 6 + 2) - (3 + 6 + 3) - (3 + 8)
	must(t, f.SetXattr(p, ino, []byte("user.big"), big[:room], false, false, now))
	if errno := f.SetXattr(p, ino, []byte("user.w"), nil, false, false, now); errno != abi.ENOSPC {
		t.Fatalf("one more in a full page: %d, want ENOSPC", errno)
	}
	for _, name := range []string{"user.x", "trusted.y", "user.z", "user.big"} {
		must(t, f.RemoveXattr(p, ino, []byte(name), now))
	}
	if p.InUse() != before {
		t.Fatalf("the attribute page outlives the attributes: %d pages", p.InUse()-before)
	}
	// An inode's page goes with it.
	create(t, f, p, RootIno, "b") // keeps the directory's page
	withB := p.InUse()
	must(t, f.SetXattr(p, ino, []byte("user.x"), []byte("1"), false, false, now))
	must(t, f.Unlink(p, RootIno, []byte("a"), now))
	if p.InUse() != withB {
		t.Fatalf("the attribute page outlives its inode: %d pages, want %d", p.InUse(), withB)
	}
	checkInvariants(t, f)
}
