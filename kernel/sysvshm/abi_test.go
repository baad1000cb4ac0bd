package sysvshm

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestLayout checks the offsets against golang.org/x/sys/unix's types, which are generated from
// Linux's headers: SysvShmDesc is struct shmid64_ds.
func TestLayout(t *testing.T) {
	var d unix.SysvShmDesc
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"size", DescSize, unsafe.Sizeof(d)},
		{"key", descKey, unsafe.Offsetof(d.Perm) + unsafe.Offsetof(d.Perm.Key)},
		{"uid", descUID, unsafe.Offsetof(d.Perm.Uid)},
		{"gid", descGID, unsafe.Offsetof(d.Perm.Gid)},
		{"cuid", descCUID, unsafe.Offsetof(d.Perm.Cuid)},
		{"cgid", descCGID, unsafe.Offsetof(d.Perm.Cgid)},
		{"mode", descMode, unsafe.Offsetof(d.Perm.Mode)},
		{"seq", descSeq, unsafe.Offsetof(d.Perm.Seq)},
		{"segsz", descSegsz, unsafe.Offsetof(d.Segsz)},
		{"atime", descAtime, unsafe.Offsetof(d.Atime)},
		{"dtime", descDtime, unsafe.Offsetof(d.Dtime)},
		{"ctime", descCtime, unsafe.Offsetof(d.Ctime)},
		{"cpid", descCPID, unsafe.Offsetof(d.Cpid)},
		{"lpid", descLPID, unsafe.Offsetof(d.Lpid)},
		{"nattch", descNattch, unsafe.Offsetof(d.Nattch)},
	} {
		if c.got != c.want {
			t.Errorf("shmid64_ds %s: %d, x/sys says %d", c.name, c.got, c.want)
		}
	}
	if InfoSize != 9*8 || UsageSize != 8+5*8 {
		t.Errorf("shminfo64 %d bytes, shm_info %d", InfoSize, UsageSize)
	}
	if IPCCreat != unix.IPC_CREAT || IPCExcl != unix.IPC_EXCL || IPCPrivate != unix.IPC_PRIVATE {
		t.Error("IPC_ flags differ from Linux's")
	}
}

// TestDescRoundTrip: what PutDesc writes reads back as x/sys's struct.
func TestDescRoundTrip(t *testing.T) {
	s := Segment{Key: -5, UID: 1, GID: 2, CUID: 3, CGID: 4, Mode: 0o1640, Seq: 9, Size: 1024,
		Atime: 11, Dtime: 12, Ctime: 13, CPID: 14, LPID: 15, Attached: 2}
	var d unix.SysvShmDesc
	b := unsafe.Slice((*byte)(unsafe.Pointer(&d)), unsafe.Sizeof(d))
	s.PutDesc(b)
	if d.Perm.Key != -5 || d.Perm.Uid != 1 || d.Perm.Gid != 2 || d.Perm.Cuid != 3 || d.Perm.Cgid != 4 ||
		d.Perm.Mode != 0o1640 || d.Perm.Seq != 9 || d.Segsz != 1024 || d.Atime != 11 || d.Dtime != 12 ||
		d.Ctime != 13 || d.Cpid != 14 || d.Lpid != 15 || d.Nattch != 2 {
		t.Errorf("%+v", d)
	}
	if uid, gid, mode := DescPerm(b); uid != 1 || gid != 2 || mode != 0o1640 {
		t.Errorf("DescPerm = %d %d %o", uid, gid, mode)
	}
}
