package cpio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	ucpio "github.com/u-root/u-root/pkg/cpio"
	"github.com/unitrace/unitrace/kernel/fs"
)

// The oracle is u-root's newc writer and reader (github.com/u-root/u-root/pkg/cpio): archives it
// writes must read back record for record, and whatever Check accepts it must read the same way.

// write archives recs with u-root's writer, trailer included.
func write(t testing.TB, recs []ucpio.Record) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := ucpio.Newc.Writer(&buf)
	if err := ucpio.WriteRecords(w, recs); err != nil {
		t.Fatal(err)
	}
	if err := ucpio.WriteTrailer(w); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// contents reads a u-root record's data.
func contents(t testing.TB, r ucpio.Record) []byte {
	t.Helper()
	if r.ReaderAt == nil {
		return nil
	}
	b, err := io.ReadAll(io.NewSectionReader(r.ReaderAt, 0, int64(r.FileSize)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameRecord fails unless ours decodes want (as written: FileSize 0 for a record without data).
func sameRecord(t testing.TB, a []byte, got Record, want ucpio.Info, data []byte) {
	t.Helper()
	if string(got.Name(a)) != want.Name {
		t.Fatalf("name %q, want %q", got.Name(a), want.Name)
	}
	g := ucpio.Info{Ino: uint64(got.Ino), Mode: uint64(got.Mode), UID: uint64(got.UID), GID: uint64(got.GID),
		NLink: uint64(got.NLink), MTime: uint64(got.MTime), FileSize: uint64(got.FileSize),
		Major: uint64(got.DevMajor), Minor: uint64(got.DevMinor), Rmajor: uint64(got.RdevMajor), Rminor: uint64(got.RdevMinor),
		Name: string(got.Name(a))}
	want.Dev = 0
	if g != want {
		t.Fatalf("%s: header %+v, want %+v", want.Name, g, want)
	}
	if !bytes.Equal(got.Data(a), data) {
		t.Fatalf("%s: %d bytes of data, want %d", want.Name, len(got.Data(a)), len(data))
	}
}

// readAll walks a checked archive with At.
func readAll(t testing.TB, a []byte) []Record {
	t.Helper()
	var out []Record
	for off := 0; ; {
		r, err := At(a, off)
		if err != OK {
			t.Fatalf("At(%d): %v", off, err)
		}
		if r.Offset() != off || r.Next() <= off || r.Next()%4 != 0 {
			t.Fatalf("record at %d: offset %d, next %d", off, r.Offset(), r.Next())
		}
		if r.IsTrailer() {
			return out
		}
		out = append(out, r)
		off = r.Next()
	}
}

// randomRecords makes n records with names, sizes and fields that cover every padding case.
func randomRecords(rng *rand.Rand, n int) ([]ucpio.Record, [][]byte) {
	var recs []ucpio.Record
	var datas [][]byte
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("d%d/%s", i%7, strings.Repeat("n", 1+rng.IntN(12)))
		name += fmt.Sprintf("%d", i)
		info := ucpio.Info{
			Ino: uint64(i + 1), UID: uint64(rng.Uint32()), GID: uint64(rng.Uint32()), NLink: 1,
			MTime: uint64(rng.Uint32()), Major: uint64(rng.IntN(256)), Minor: uint64(rng.IntN(256)), Name: name,
		}
		var data []byte
		switch rng.IntN(4) {
		case 0:
			info.Mode = fs.S_IFDIR | 0o755
		case 1:
			info.Mode = fs.S_IFLNK | 0o777
			data = []byte(strings.Repeat("t/", rng.IntN(5)) + "target")
		case 2:
			info.Mode = fs.S_IFCHR | 0o600
			info.Rmajor, info.Rminor = 1, 3
		default:
			info.Mode = fs.S_IFREG | uint64(rng.IntN(0o10000))
			data = make([]byte, []int{0, 1, 2, 3, 4, 5, 7, 8, 4095, 4096, 10000}[rng.IntN(11)])
			for j := range data {
				data[j] = byte(rng.Uint32())
			}
		}
		info.FileSize = uint64(len(data))
		recs = append(recs, ucpio.StaticRecord(data, info))
		datas = append(datas, data)
	}
	return recs, datas
}

func TestReadsWhatURootWrites(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 50; round++ {
		recs, datas := randomRecords(rng, rng.IntN(40))
		a := write(t, recs)
		n, at, err := Check(a)
		if err != OK || n != len(recs) {
			t.Fatalf("round %d: Check = %d records, %v at %d; want %d, ok", round, n, err, at, len(recs))
		}
		got := readAll(t, a)
		for i := range recs {
			sameRecord(t, a, got[i], recs[i].Info, datas[i])
		}
	}
}

// TestLongNames writes names of every length around the padding boundaries, a component of
// NameMax bytes and a name of PathMax-1 bytes, the longest At allows.
func TestLongNames(t *testing.T) {
	var recs []ucpio.Record
	for n := 1; n <= 9; n++ {
		recs = append(recs, ucpio.StaticFile(strings.Repeat("a", n), "x", 0o644))
	}
	recs = append(recs, ucpio.StaticFile(strings.Repeat("b", fs.NameMax), "", 0o644))
	long := strings.Repeat(strings.Repeat("c", 254)+"/", 17)
	long = long[:fs.PathMax-2] + "z" // 4095 bytes, NUL makes 4096
	recs = append(recs, ucpio.StaticFile(long, "y", 0o644))
	a := write(t, recs)
	if n, at, err := Check(a); err != OK || n != len(recs) {
		t.Fatalf("Check = %d, %v at %d", n, err, at)
	}
	got := readAll(t, a)
	if string(got[len(got)-1].Name(a)) != long {
		t.Fatalf("longest name read back wrong")
	}
	// One byte longer is refused.
	recs[len(recs)-1] = ucpio.StaticFile(long[:len(long)-1]+"zz", "y", 0o644)
	if _, _, err := Check(write(t, recs)); err != ErrNameSize {
		t.Fatalf("name of PathMax bytes: %v, want ErrNameSize", err)
	}
}

// TestGNUCpio reads an archive GNU cpio wrote (lower-case hex, padded to 512 bytes with zeros
// after the trailer), when cpio is installed.
func TestGNUCpio(t *testing.T) {
	bin, err := exec.LookPath("cpio")
	if err != nil {
		t.Skip("GNU cpio is not installed")
	}
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "sub", "deeper"), 0o750))
	must(os.WriteFile(filepath.Join(dir, "sub", "f.txt"), []byte("hello, cpio\n"), 0o640))
	must(os.WriteFile(filepath.Join(dir, "empty"), nil, 0o600))
	must(os.Symlink("sub/f.txt", filepath.Join(dir, "link")))
	names := "empty\nlink\nsub\nsub/deeper\nsub/f.txt\n"
	cmd := exec.Command(bin, "--quiet", "-o", "-H", "newc")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(names)
	a, err := cmd.Output()
	must(err)
	n, at, cerr := Check(a)
	if cerr != OK || n != 5 {
		t.Fatalf("Check = %d, %v at %d", n, cerr, at)
	}
	got := readAll(t, a)
	for i, name := range strings.Fields(names) {
		r := got[i]
		if string(r.Name(a)) != name {
			t.Fatalf("record %d: %q, want %q", i, r.Name(a), name)
		}
		fi, err := os.Lstat(filepath.Join(dir, name))
		must(err)
		if r.Perm() != uint32(fi.Mode().Perm()) || r.MTime != uint32(fi.ModTime().Unix()) {
			t.Errorf("%s: perm %o mtime %d, want %o %d", name, r.Perm(), r.MTime, fi.Mode().Perm(), fi.ModTime().Unix())
		}
	}
	if r := got[4]; r.Type() != fs.S_IFREG || string(r.Data(a)) != "hello, cpio\n" {
		t.Errorf("sub/f.txt: type %o, data %q", r.Type(), r.Data(a))
	}
	if r := got[1]; r.Type() != fs.S_IFLNK || string(r.Data(a)) != "sub/f.txt" {
		t.Errorf("link: type %o, target %q", r.Type(), r.Data(a))
	}
	if got[2].Type() != fs.S_IFDIR {
		t.Errorf("sub: type %o", got[2].Type())
	}
}

// header builds one newc header by hand: fields in order, name size from name (plus NUL).
func header(mode, size uint32, name string) []byte {
	h := fmt.Sprintf("%s%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		Magic, 1, mode, 0, 0, 1, 0, size, 0, 0, 0, 0, len(name)+1, 0)
	b := append([]byte(h), name...)
	b = append(b, 0)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func record(mode uint32, name, data string) []byte {
	b := append(header(mode, uint32(len(data)), name), data...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

var trailer = record(0, Trailer, "")

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestMalformed(t *testing.T) {
	file := record(fs.S_IFREG|0o644, "fg", "abcde") // name padded by 1, data by 3
	set := func(b []byte, off int, s string) []byte {
		c := append([]byte(nil), b...)
		copy(c[off:], s)
		return c
	}
	field := func(i int) int { return magicLen + i*fieldLen }
	cases := []struct {
		name string
		a    []byte
		want Err
	}{
		{"empty", nil, ErrNoTrailer},
		{"no trailer", file, ErrNoTrailer},
		{"short header", cat(file, trailer[:HeaderSize-1]), ErrTruncated},
		{"magic", cat(set(file, 0, "070702"), trailer), ErrMagic},
		{"old binary magic", cat(set(file, 0, "\xc7\x71"), trailer), ErrMagic},
		{"hex", cat(set(file, field(fMode)+3, "g"), trailer), ErrHex},
		{"hex sign", cat(set(file, field(fUID), "-0000001"), trailer), ErrHex},
		{"hex space", cat(set(file, field(fCheck), " 0000000"), trailer), ErrHex},
		{"name size 0", cat(set(file, field(fNameSize), "00000000"), trailer), ErrNameSize},
		{"name size huge", cat(set(file, field(fNameSize), "00001001"), trailer), ErrNameSize},
		{"name past end", set(file, field(fNameSize), "00000FFF"), ErrTruncated},
		{"data past end", set(file, field(fFileSize), "7FFFFFFF"), ErrTruncated},
		{"data size wraps", set(file, field(fFileSize), "FFFFFFFF"), ErrTruncated},
		{"no final padding", cat(file, trailer)[:len(file)-3], ErrTruncated},
		{"name without NUL", cat(set(file, HeaderSize+2, "x"), trailer), ErrNameNUL},
		{"NUL inside name", cat(record(fs.S_IFREG, "a\x00b", ""), trailer), ErrNameNUL},
		{"name padding", cat(set(file, HeaderSize+3, "x"), trailer), ErrPadding},
		{"data padding", cat(set(file, len(file)-1, "x"), trailer), ErrPadding},
		{"absolute name", cat(record(fs.S_IFREG, "/etc/passwd", ""), trailer), ErrName},
		{"dot-dot", cat(record(fs.S_IFREG, "../x", ""), trailer), ErrName},
		{"inner dot-dot", cat(record(fs.S_IFREG, "a/../../x", ""), trailer), ErrName},
		{"dot", cat(record(fs.S_IFDIR, ".", ""), trailer), ErrName},
		{"empty name", cat(record(fs.S_IFREG, "", ""), trailer), ErrName},
		{"long component", cat(record(fs.S_IFREG, strings.Repeat("x", 256), ""), trailer), ErrName},
		{"trailer with data", cat(file, record(0, Trailer, "x")), ErrTrailerData},
		{"data after trailer", cat(file, trailer, []byte{0, 0, 1}), ErrAfterTrailer},
		{"record after trailer", cat(trailer, file), ErrAfterTrailer},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, _, err := Check(c.a); err != c.want {
				t.Errorf("Check = %v, want %v", err, c.want)
			}
		})
	}
	// The good ones, for contrast: lower-case hex, zeros after the trailer (GNU's block padding).
	lower := append([]byte(nil), file...)
	copy(lower, strings.ToLower(string(file[:HeaderSize])))
	for _, a := range [][]byte{cat(file, trailer), cat(file, trailer, make([]byte, 512)), cat(lower, trailer)} {
		if n, at, err := Check(a); err != OK || n != 1 {
			t.Errorf("good archive: %d, %v at %d", n, err, at)
		}
	}
	for _, off := range []int{-4, 1, len(file) + len(trailer) + 4} {
		if _, err := At(cat(file, trailer), off); err != ErrOffset {
			t.Errorf("At(%d) = %v, want ErrOffset", off, err)
		}
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"a": true, "a/b": true, "a/b/c.txt": true, "...": true, ".a": true, "a..": true, "a/.b/..c": true,
		strings.Repeat("x", 255): true, strings.Repeat("x", 255) + "/y": true, Trailer: true,
		"": false, "/": false, "/a": false, "a/": false, "a//b": false, ".": false, "..": false,
		"./a": false, "a/.": false, "a/./b": false, "a/..": false, "../a": false, strings.Repeat("x", 256): false,
	} {
		if got := ValidName([]byte(name)); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestErrorStrings(t *testing.T) {
	seen := map[string]bool{}
	for e := OK; e < numErrors; e++ {
		s := e.String()
		if s == numErrors.String() || seen[s] {
			t.Errorf("Err %d: %q is not its own description", e, s)
		}
		seen[s] = true
	}
}

// FuzzArchive checks that no input makes Check or At panic or loop, that Check is a pure
// function of its input, and that every archive it accepts reads the same with u-root's reader.
func FuzzArchive(f *testing.F) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 4; i++ {
		recs, _ := randomRecords(rng, 1+i*3)
		f.Add(write(f, recs))
	}
	f.Add(cat(record(fs.S_IFREG|0o644, "f", "abcde"), trailer))
	f.Add(cat(record(fs.S_IFLNK|0o777, "d/l", "../x"), trailer, make([]byte, 8)))
	f.Add([]byte(Magic))
	f.Fuzz(func(t *testing.T, a []byte) {
		n, at, err := Check(a)
		if n2, at2, err2 := Check(a); n2 != n || at2 != at || err2 != err {
			t.Fatalf("Check differs between runs")
		}
		if err.String() == numErrors.String() {
			t.Fatalf("Check returned an undescribed error %d", err)
		}
		if err != OK {
			return
		}
		ours := readAll(t, a)
		if len(ours) != n {
			t.Fatalf("Check counted %d records, At walks %d", n, len(ours))
		}
		rr := ucpio.Newc.Reader(bytes.NewReader(a))
		for i, r := range ours {
			if !ValidName(r.Name(a)) {
				t.Fatalf("record %d: invalid name %q accepted", i, r.Name(a))
			}
			theirs, rerr := rr.ReadRecord()
			if rerr != nil {
				t.Fatalf("record %d: u-root's reader fails on an archive Check accepts: %v", i, rerr)
			}
			info := theirs.Info
			info.FileSize = uint64(r.FileSize)
			sameRecord(t, a, r, info, contents(t, theirs))
		}
		if _, rerr := rr.ReadRecord(); !errors.Is(rerr, io.EOF) {
			t.Fatalf("u-root's reader goes on after the last record: %v", rerr)
		}
	})
}
