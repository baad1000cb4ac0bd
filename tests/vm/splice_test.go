package vm_test

import (
	"strings"
	"testing"
)

// TestSplice boots examples/splice: io.Copy from a TCP connection into a file, from the file
// into a connection and from one connection into another (splice through a pipe between a
// socket and a file or socket, sendfile from the file), between two files (copy_file_range),
// a blocking pipe into a connection with splice itself (waiting for the pipe's writer first),
// sendfile to a file at an offset, splice between a pipe and a file with a writer or reader
// catching up (blocking on the pipe), sendfile into a pipe and tee, each checked byte for byte;
// then the errors Linux gives for splice, sendfile and copy_file_range. The launcher's strace
// (unitrace.strace=1) shows the connections' bytes went through splice and sendfile, not read
// and write.
func TestSplice(t *testing.T) { forEachArch(t, testSplice) }

func testSplice(t *testing.T, a guestArch) {
	out, stderr, status := runLauncher(t, a, "-timeout", "5m", "-image", a.path("splice.elf"), "examples/splice", "unitrace.strace=1")
	console := consoleLines(out)
	got := programLines(console)
	compareLines(t, got, []string{
		"conn to file: 1048576 bytes, sha256 ok",
		"file to conn: 1048576 bytes, sha256 ok",
		"conn to conn: 1048576 bytes, sha256 ok",
		"pipe to conn: 200000 bytes, sha256 ok",
		"file to file: 1060921 bytes, sha256 ok",
		"sendfile at an offset: 1059921 bytes, sha256 ok",
		"sendfile: offset 1060921, position 0",
		"copy_file_range 100+50, offsets 110 150: 150 bytes, sha256 ok",
		"pipe to file: 300000 bytes, sha256 ok",
		"pipe to file: offset 300000, position 0",
		"file to pipe: 300000 bytes, sha256 ok",
		"sendfile to pipe 4000, offset 4100: 4000 bytes, sha256 ok",
		"tee 3000: 3000 bytes, sha256 ok",
		"tee across the ring 10000: 10000 bytes, sha256 ok",
		"the bytes tee left: 10000 bytes, sha256 ok",
		"errors: file to file EINVAL | pipe offset ESPIPE | empty EAGAIN | to itself EINVAL | append EINVAL | flags EINVAL | " +
			"write end EBADF | sendfile from pipe EINVAL | copy flags EINVAL | copy to append EBADF | copy from pipe EINVAL | " +
			"copy to /proc EXDEV | vmsplice ENOSYS",
		"splice: ok",
	})
	if status != 0 {
		t.Errorf("status %d\n%s", status, stderr)
	}
	// Calls that did not fail: "splice(N) ... = 61312" or "... blocked" (a socket's bytes come
	// from the host), not "= -22".
	moved := map[string]int{}
	for _, l := range strings.Split(stderr+"\n"+out, "\n") {
		for _, call := range []string{"splice(", "sendfile(", "copy_file_range(", "tee("} {
			if i := strings.Index(l, "] "+call); i >= 0 && !strings.Contains(l, " = -") {
				moved[strings.TrimSuffix(call, "(")]++
			}
		}
	}
	// At least: a 1 MiB copy from a connection is 18 splices into the pipe and 18 out of it,
	// twice; the file into a connection one sendfile per 60 KiB request at most.
	for call, least := range map[string]int{"splice": 72, "sendfile": 3, "copy_file_range": 3, "tee": 1} {
		if moved[call] < least {
			t.Errorf("%d %s calls did not fail, want at least %d", moved[call], call, least)
		}
	}
	t.Logf("calls that did not fail: %v", moved)
}
