package packfiles

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	ucpio "github.com/u-root/u-root/pkg/cpio"
	kfs "github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/cpio"
	"github.com/unitrace/unitrace/kernel/fs/memfs"
	"github.com/unitrace/unitrace/kernel/fs/packed"
)

// Options change what goes into the archive.
type Options struct {
	// MTime, if not nil, is every record's modification time (seconds since the epoch) instead
	// of the host file's: the archive then depends on names, modes, contents and link targets
	// alone. Otherwise times before 1970 become 0 and times past 2106 2^32-1 (newc's range).
	MTime *uint32
}

// Summary describes an archive.
type Summary struct {
	Dirs                      []string // the packed directories, each a read-only mount in the guest
	Files, Directories, Links int      // records of each kind, the packed directories included
	Bytes                     int64    // of file contents
	Size                      int64    // of the archive
}

// entry is one record to write.
type entry struct {
	name   string // the guest path without its leading slash
	mode   uint32 // file type and permission bits, Linux's
	mtime  uint32
	size   int64  // regular files
	host   string // where it comes from (regular files: what to read)
	target string // symbolic links
}

// Archive packs dirs into a newc archive (nil for none).
func Archive(dirs []Dir, opts Options) ([]byte, Summary, error) {
	if len(dirs) == 0 {
		return nil, Summary{}, nil
	}
	var buf bytes.Buffer
	sum, err := Write(&buf, dirs, opts)
	if err != nil {
		return nil, Summary{}, err
	}
	return buf.Bytes(), sum, nil
}

// Write packs dirs into a newc archive written to w: every file below each HOSTDIR, and the
// HOSTDIR itself as GUESTDIR, in the order described in the package documentation. A GUESTDIR
// below another one merges into it; the others are the packed directories, at most
// packed.MaxDirs of them.
func Write(w io.Writer, dirs []Dir, opts Options) (Summary, error) {
	entries, roots, err := collect(dirs, opts)
	if err != nil {
		return Summary{}, err
	}
	cw := &countingWriter{w: w}
	rw := ucpio.Newc.Writer(cw)
	sum := Summary{Dirs: roots}
	for i, e := range entries {
		info := ucpio.Info{Ino: uint64(i + 1), Mode: uint64(e.mode), NLink: 1, MTime: uint64(e.mtime), Name: e.name}
		var rec ucpio.Record
		switch e.mode & kfs.S_IFMT {
		case kfs.S_IFDIR:
			info.NLink = 2
			rec = ucpio.Record{Info: info}
			sum.Directories++
		case kfs.S_IFLNK:
			rec = ucpio.StaticRecord([]byte(e.target), info)
			sum.Links++
		default:
			f, err := os.Open(e.host)
			if err != nil {
				return Summary{}, fmt.Errorf("packing %s: %w", e.host, err)
			}
			info.FileSize = uint64(e.size)
			rec = ucpio.Record{Info: info, ReaderAt: f}
			err = rw.WriteRecord(rec)
			f.Close()
			if err != nil {
				return Summary{}, fmt.Errorf("packing %s (did it change while being packed?): %w", e.host, err)
			}
			sum.Files++
			sum.Bytes += e.size
			continue
		}
		if err := rw.WriteRecord(rec); err != nil {
			return Summary{}, fmt.Errorf("packing %s: %w", e.host, err)
		}
	}
	if err := ucpio.WriteTrailer(rw); err != nil {
		return Summary{}, fmt.Errorf("packing files: %w", err)
	}
	sum.Size = cw.n
	return sum, nil
}

// Describe says in a few words what an archive holds, for the tools' messages.
func Describe(s Summary) string {
	return fmt.Sprintf("%d files (%d bytes), %d directories and %d symbolic links at %s: a %d-byte archive",
		s.Files, s.Bytes, s.Directories, s.Links, strings.Join(s.Dirs, " "), s.Size)
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// collect walks dirs and returns the records in archive order, and the packed directories.
func collect(dirs []Dir, opts Options) ([]*entry, []string, error) {
	byName := map[string]*entry{}
	add := func(e *entry) error {
		prev, ok := byName[e.name]
		switch {
		case !ok:
			byName[e.name] = e
		case isDir(prev.mode) && isDir(e.mode): // the first one's mode and time stay
		default:
			return fmt.Errorf("/%s would come from both %s and %s", e.name, prev.host, e.host)
		}
		return nil
	}
	dirs = slices.Clone(dirs)
	for i := range dirs {
		g, err := cleanGuest(dirs[i].Guest)
		if err != nil {
			return nil, nil, fmt.Errorf("-files %s: %w", dirs[i], err)
		}
		dirs[i].Guest = g
	}
	for _, d := range dirs {
		root, err := filepath.EvalSymlinks(d.Host)
		if err != nil {
			return nil, nil, fmt.Errorf("-files %s: %w", d, err)
		}
		fi, err := os.Stat(root)
		if err != nil {
			return nil, nil, fmt.Errorf("-files %s: %w", d, err)
		}
		if !fi.IsDir() {
			return nil, nil, fmt.Errorf("-files %s: %s is not a directory", d, d.Host)
		}
		err = filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Guest[1:]
			if p != root {
				rel, err := filepath.Rel(root, p)
				if err != nil {
					return err
				}
				name += "/" + filepath.ToSlash(rel)
			}
			fi, err := de.Info()
			if err != nil {
				return err
			}
			e, err := entryFor(p, name, fi, opts)
			if err != nil {
				return err
			}
			return add(e)
		})
		if err != nil {
			return nil, nil, fmt.Errorf("-files %s: %w", d, err)
		}
	}
	roots := packedRoots(dirs)
	if len(roots) > packed.MaxDirs {
		return nil, nil, fmt.Errorf("-files: %d packed directories (%s), the kernel mounts at most %d: put them below one directory",
			len(roots), strings.Join(roots, " "), packed.MaxDirs)
	}
	// A GUESTDIR inside another one needs the directories between them, which the outer HOSTDIR
	// may lack: they are made, as the kernel makes the directories above a packed directory.
	for _, d := range dirs {
		for dir := parentName(d.Guest[1:]); underAny(dir, roots) && byName[dir] == nil; dir = parentName(dir) {
			byName[dir] = &entry{name: dir, mode: kfs.S_IFDIR | 0o755, mtime: byName[d.Guest[1:]].mtime, host: d.Host}
		}
	}
	for _, e := range byName {
		if parent := byName[parentName(e.name)]; underAny(parentName(e.name), roots) && !isDir(parent.mode) {
			return nil, nil, fmt.Errorf("/%s (from %s) would be below /%s, which is not a directory (from %s)", e.name, e.host, parent.name, parent.host)
		}
	}
	entries := make([]*entry, 0, len(byName))
	for _, e := range byName {
		entries = append(entries, e)
	}
	// Parents first: '/' sorts before every other byte, so a directory's records follow it.
	key := func(e *entry) string { return strings.ReplaceAll(e.name, "/", "\x00") }
	slices.SortFunc(entries, func(a, b *entry) int { return strings.Compare(key(a), key(b)) })
	for _, r := range roots {
		n := 0
		for _, e := range entries {
			if e.name == r[1:] || strings.HasPrefix(e.name, r[1:]+"/") {
				n++
			}
		}
		if n > memfs.MaxInodes-1 {
			return nil, nil, fmt.Errorf("-files: %s would hold %d files, a packed directory holds at most %d", r, n, memfs.MaxInodes-1)
		}
	}
	return entries, roots, nil
}

// packedRoots returns the GUESTDIRs that lie below no other GUESTDIR, sorted.
func packedRoots(dirs []Dir) []string {
	var roots []string
	for _, d := range dirs {
		inner := false
		for _, o := range dirs {
			if strings.HasPrefix(d.Guest, o.Guest+"/") {
				inner = true
			}
		}
		if !inner && !slices.Contains(roots, d.Guest) {
			roots = append(roots, d.Guest)
		}
	}
	slices.Sort(roots)
	return roots
}

// underAny reports whether the guest name (no leading slash) is at or below one of roots.
func underAny(name string, roots []string) bool {
	for _, r := range roots {
		if name == r[1:] || strings.HasPrefix(name, r[1:]+"/") {
			return true
		}
	}
	return false
}

func parentName(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[:i]
	}
	return ""
}

func isDir(mode uint32) bool { return mode&kfs.S_IFMT == kfs.S_IFDIR }

// entryFor makes the record of host file p, named name in the guest.
func entryFor(p, name string, fi fs.FileInfo, opts Options) (*entry, error) {
	if !cpio.ValidName([]byte(name)) || len(name)+1 > kfs.PathMax {
		return nil, fmt.Errorf("%s: its guest path /%s is too long (the kernel takes names of at most %d bytes and paths under %d)",
			p, name, kfs.NameMax, kfs.PathMax)
	}
	m := fi.Mode()
	e := &entry{name: name, host: p, mtime: mtimeOf(fi, opts)}
	perm := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		perm |= kfs.S_ISUID
	}
	if m&fs.ModeSetgid != 0 {
		perm |= kfs.S_ISGID
	}
	if m&fs.ModeSticky != 0 {
		perm |= kfs.S_ISVTX
	}
	switch {
	case m.IsDir():
		e.mode = kfs.S_IFDIR | perm
	case m.IsRegular():
		if fi.Size() > math.MaxUint32 {
			return nil, fmt.Errorf("%s: %d bytes; a packed file holds less than 4 GiB", p, fi.Size())
		}
		e.mode, e.size = kfs.S_IFREG|perm, fi.Size()
	case m&fs.ModeSymlink != 0:
		target, err := os.Readlink(p)
		if err != nil {
			return nil, err
		}
		if len(target) >= kfs.PathMax {
			return nil, fmt.Errorf("%s: a symbolic link target of %d bytes; the kernel takes fewer than %d", p, len(target), kfs.PathMax)
		}
		e.mode, e.target = kfs.S_IFLNK|0o777, target
	default:
		return nil, fmt.Errorf("%s is %s: only regular files, directories and symbolic links can be packed", p, kindOf(m))
	}
	return e, nil
}

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "an irregular file"
}

func mtimeOf(fi fs.FileInfo, opts Options) uint32 {
	if opts.MTime != nil {
		return *opts.MTime
	}
	return uint32(min(max(fi.ModTime().Unix(), 0), math.MaxUint32))
}
