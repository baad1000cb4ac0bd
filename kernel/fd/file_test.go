package fd

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"

	"github.com/unitrace/unitrace/kernel/fs"
)

const (
	oWRONLY = 0o1
	oPATH   = O_PATH
)

func TestOpenFileAndDupShareTheDescription(t *testing.T) {
	var tb Table
	tb.Init()
	n := fs.Node{FS: 0, Ino: 7}
	fd, errno := tb.OpenFile(n, oWRONLY|O_APPEND|O_CLOEXEC|O_CREAT|O_TRUNC|O_EXCL)
	if fd != 3 || errno != 0 || tb.Kind(fd) != KindFile {
		t.Fatalf("OpenFile = %d, %d (%v)", fd, errno, tb.Kind(fd))
	}
	if fl, _ := tb.Fcntl(fd, F_GETFL, 0); fl != oWRONLY|O_APPEND {
		t.Errorf("F_GETFL = %#o, want O_WRONLY|O_APPEND: the creation flags and O_CLOEXEC are not the description's", fl)
	}
	if cl, _ := tb.Fcntl(fd, F_GETFD, 0); cl != FD_CLOEXEC {
		t.Errorf("F_GETFD = %d, want FD_CLOEXEC", cl)
	}
	f, _ := tb.File(fd)
	f.Pos = 42

	d, errno := tb.Dup(fd, 0, false)
	if d != 4 || errno != 0 {
		t.Fatalf("Dup = %d, %d", d, errno)
	}
	g, _ := tb.File(d)
	if g != f || g.Pos != 42 {
		t.Errorf("the duplicate has its own description (pos %d)", g.Pos)
	}
	if cl, _ := tb.Fcntl(d, F_GETFD, 0); cl != 0 {
		t.Errorf("the duplicate's F_GETFD = %d: FD_CLOEXEC is per descriptor", cl)
	}
	if _, errno := tb.Fcntl(d, F_SETFL, O_NONBLOCK); errno != 0 {
		t.Fatal(errno)
	}
	if fl, _ := tb.Fcntl(fd, F_GETFL, 0); fl != oWRONLY|O_NONBLOCK || !tb.Nonblocking(fd) {
		t.Errorf("after F_SETFL(O_NONBLOCK) on the duplicate the original's F_GETFL = %#o", fl)
	}
	d2, _ := tb.Dup(fd, 10, true)
	if d2 != 10 {
		t.Fatalf("F_DUPFD from 10 = %d", d2)
	}
	if cl, _ := tb.Fcntl(d2, F_GETFD, 0); cl != FD_CLOEXEC {
		t.Errorf("F_DUPFD_CLOEXEC's descriptor lacks FD_CLOEXEC")
	}

	for _, c := range []int{fd, d} {
		if last, errno := tb.Close(c); errno != 0 || last != (fs.Node{}) {
			t.Fatalf("Close(%d) = %+v, %d with descriptors left", c, last, errno)
		}
	}
	if last, _ := tb.Close(d2); last != n {
		t.Fatalf("closing the last descriptor gave %+v, want the node", last)
	}
	for d := range tb.descs {
		if tb.descs[d].refs != 0 {
			t.Fatalf("description %d still has %d references", d, tb.descs[d].refs)
		}
	}
}

func TestDup3(t *testing.T) {
	var tb Table
	tb.Init()
	a := fs.Node{Ino: 1}
	b := fs.Node{Ino: 2}
	fa, _ := tb.OpenFile(a, 0)
	fb, _ := tb.OpenFile(b, 0)
	efd, _ := tb.Eventfd(0, 0)
	for _, c := range []struct {
		old, new, flags int
		errno           int
	}{
		{fa, fa, 0, abi.EINVAL}, {fa, fb, 1, abi.EINVAL}, {99, fb, 0, abi.EBADF}, {fa, -1, 0, abi.EBADF},
		{fa, MaxFDs, 0, abi.EBADF}, {efd, 20, 0, abi.EINVAL},
	} {
		if _, _, errno := tb.Dup3(c.old, c.new, c.flags); errno != c.errno {
			t.Errorf("Dup3(%d, %d, %#x) = %d, want %d", c.old, c.new, c.flags, errno, c.errno)
		}
	}
	got, last, errno := tb.Dup3(fa, fb, O_CLOEXEC)
	if got != fb || errno != 0 || last != b {
		t.Fatalf("Dup3 over the only descriptor of b = %d, %+v, %d; want b's node back", got, last, errno)
	}
	if f, _ := tb.File(fb); f.Node != a {
		t.Errorf("after Dup3 the new descriptor names %+v", f.Node)
	}
	if cl, _ := tb.Fcntl(fb, F_GETFD, 0); cl != FD_CLOEXEC {
		t.Errorf("Dup3(O_CLOEXEC) without FD_CLOEXEC")
	}
	if _, last, _ := tb.Dup3(fa, efd, 0); last != (fs.Node{}) || tb.Kind(efd) != KindFile {
		t.Errorf("Dup3 over an eventfd: %+v, kind %v", last, tb.Kind(efd))
	}
	if con, _ := tb.Dup(1, 0, false); tb.Kind(con) != KindConsole {
		t.Errorf("Dup of the console made a %v", tb.Kind(con))
	}
	ep, _ := tb.EpollCreate(0)
	if _, errno := tb.Dup(ep, 0, false); errno != abi.EINVAL {
		t.Errorf("Dup of an epoll instance = %d, want EINVAL", errno)
	}
	if _, errno := tb.Dup(fa, MaxFDs, false); errno != abi.EINVAL {
		t.Errorf("F_DUPFD beyond the table = %d, want EINVAL", errno)
	}
	if _, errno := tb.Dup(fa, MaxFDs-1, false); errno != 0 {
		t.Errorf("F_DUPFD onto the last descriptor = %d", errno)
	}
	if _, errno := tb.Dup(fa, MaxFDs-1, false); errno != abi.EMFILE {
		t.Errorf("F_DUPFD with nothing free above = %d, want EMFILE", errno)
	}
}

func TestFileDescriptorRules(t *testing.T) {
	var tb Table
	tb.Init()
	p, _ := tb.OpenFile(fs.Node{Ino: 3}, oPATH)
	if fl, errno := tb.Fcntl(p, F_GETFL, 0); fl != oPATH || errno != 0 {
		t.Errorf("O_PATH F_GETFL = %#o, %d", fl, errno)
	}
	if _, errno := tb.Fcntl(p, F_SETFL, O_NONBLOCK); errno != abi.EBADF {
		t.Errorf("O_PATH F_SETFL = %d, want EBADF", errno)
	}
	ep, _ := tb.EpollCreate(0)
	if errno := tb.EpollCtl(ep, EPOLL_CTL_ADD, p, Event{Events: EPOLLIN}); errno != abi.EPERM {
		t.Errorf("epoll_ctl ADD of a file = %d, want EPERM as for a regular file", errno)
	}
	for !tb.Full() {
		if _, errno := tb.OpenFile(fs.Node{Ino: 4}, 0); errno != 0 {
			t.Fatal(errno)
		}
	}
	if _, errno := tb.OpenFile(fs.Node{Ino: 4}, 0); errno != abi.EMFILE {
		t.Errorf("OpenFile on a full table = %d", errno)
	}
	checkInvariants(t, &tb)
}
