package vmconfig

import (
	"errors"
	"fmt"
	"github.com/unitrace/unitrace/boot"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	kfs "github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/vfs"
)

// MaxShares is how many directories one VM may share (-share): as many as the kernel's
// namespace mounts.
const MaxShares = vfs.MaxShares

// Share is one host directory shared with the guest while it runs: QEMU serves Host over 9P2000.L
// on a virtio-9p-device (a virtio-mmio device), and the kernel mounts it at Guest, told which
// device by a unitrace.share=TAG:GUEST[:ro] option on the guest command line.
type Share struct {
	Host     string // the host directory; absolute by the time QEMUArgs sees it (ResolveHost)
	Guest    string // where the guest mounts it: absolute, clean, neither / nor /dev, no colon
	ReadOnly bool   // QEMU refuses writes (readonly=on) and the kernel mounts it read-only (EROFS)
}

// readOnlySuffix ends a -share value that shares a directory read-only.
const readOnlySuffix = ":ro"

func (s Share) String() string {
	if s.ReadOnly {
		return s.Host + ":" + s.Guest + readOnlySuffix
	}
	return s.Host + ":" + s.Guest
}

// ShareTag is the virtio-9p mount tag of the share at index i in command-line order, which its
// kernel option names.
func ShareTag(i int) string { return "share" + strconv.Itoa(i) }

// shareFSDevID is the QEMU id of the -fsdev behind share i.
func shareFSDevID(i int) string { return "unitrace-share" + strconv.Itoa(i) }

// ParseShare parses a -share value: HOSTDIR:GUESTDIR or HOSTDIR:GUESTDIR:ro. The last colon
// (before a :ro) splits it, so HOSTDIR may hold colons and GUESTDIR may not. GUESTDIR is cleaned
// ("/data/" is "/data") and checked (checkShareGuest); HOSTDIR is not looked at here
// (ResolveHost does that). An error quotes s.
func ParseShare(s string) (Share, error) {
	sh, err := parseShare(s)
	if err != nil {
		return Share{}, fmt.Errorf("%q: %w", s, err)
	}
	return sh, nil
}

// parseShare is ParseShare with errors that leave s to the caller (the flag package quotes it).
func parseShare(s string) (Share, error) {
	var sh Share
	rest := s
	if strings.HasSuffix(rest, readOnlySuffix) && strings.Count(rest, ":") >= 2 {
		rest, sh.ReadOnly = strings.TrimSuffix(rest, readOnlySuffix), true
	}
	i := strings.LastIndexByte(rest, ':')
	if i < 0 {
		return Share{}, errors.New("not HOSTDIR:GUESTDIR or HOSTDIR:GUESTDIR:ro")
	}
	sh.Host, sh.Guest = rest[:i], rest[i+1:]
	if !strings.HasPrefix(sh.Guest, "/") && strings.Contains(sh.Host, ":") {
		// HOST:/GUEST:rw and the like: what follows the last colon is meant as a suffix.
		return Share{}, fmt.Errorf("unknown suffix %q: the only one is %s", ":"+sh.Guest, readOnlySuffix)
	}
	if sh.Host == "" {
		return Share{}, errors.New("HOSTDIR is empty")
	}
	g, err := checkShareGuest(sh.Guest)
	if err != nil {
		return Share{}, err
	}
	sh.Guest = g
	return sh, nil
}

// checkShareGuest checks a GUESTDIR and returns it cleaned. It must be absolute, without a ".."
// component (what it would name depends on links in the guest), neither / (the root file system
// stays the kernel's) nor /dev (the kernel's devices), a path the kernel can walk (shorter than
// PATH_MAX, components of at most NAME_MAX bytes), and one word of the guest command line that
// the kernel reads back as it is: no white space, control character or double quote (the
// kernel's command line quotes with it).
func checkShareGuest(g string) (string, error) {
	if !strings.HasPrefix(g, "/") {
		return "", fmt.Errorf("GUESTDIR %q is not an absolute path", g)
	}
	if slices.Contains(strings.Split(g, "/"), "..") {
		return "", fmt.Errorf("GUESTDIR %q has a .. component", g)
	}
	if i := strings.IndexFunc(g, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '"' || unicode.IsSpace(r) }); i >= 0 {
		r, _ := utf8.DecodeRuneInString(g[i:])
		return "", fmt.Errorf("GUESTDIR %q holds %q: the guest command line cannot carry white space, control characters or double quotes", g, r)
	}
	g = path.Clean(g)
	switch g {
	case "/":
		return "", errors.New("GUESTDIR / would hide the root file system: share into a directory below it")
	case "/dev":
		return "", errors.New("GUESTDIR /dev would hide the kernel's devices")
	}
	if len(g) >= kfs.PathMax {
		return "", fmt.Errorf("GUESTDIR is %d bytes: the kernel's paths are shorter than %d", len(g), kfs.PathMax)
	}
	for _, c := range strings.Split(g[1:], "/") {
		if len(c) > kfs.NameMax {
			return "", fmt.Errorf("GUESTDIR has a %d-byte component %.16q...: the kernel's names have at most %d bytes", len(c), c, kfs.NameMax)
		}
	}
	return g, nil
}

// ResolveHost returns s with Host made absolute, after checking that it is a directory.
func (s Share) ResolveHost() (Share, error) {
	abs, err := filepath.Abs(s.Host)
	if err != nil {
		return Share{}, fmt.Errorf("-share %s: %w", s, err)
	}
	fi, err := os.Stat(abs)
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return Share{}, fmt.Errorf("-share %s: %s: %w", s, s.Host, pe.Err) // not "stat ABS": the path as given
	} else if err != nil {
		return Share{}, fmt.Errorf("-share %s: %w", s, err)
	}
	if !fi.IsDir() {
		return Share{}, fmt.Errorf("-share %s: %s is not a directory", s, s.Host)
	}
	s.Host = abs
	return s, nil
}

// CheckShares checks shares against each other and against packed, the GUESTDIRs of the
// packed files (-files): at most MaxShares shares, and no GUESTDIR that is another share's or a
// packed one, or lies inside one or around one (each would hide the other, or need a mount
// point inside the other).
func CheckShares(shares []Share, packed []string) error {
	if len(shares) > MaxShares {
		return fmt.Errorf("-share: %d shared directories, the kernel mounts at most %d", len(shares), MaxShares)
	}
	for i, s := range shares {
		for _, o := range shares[:i] {
			switch {
			case s.Guest == o.Guest:
				return fmt.Errorf("-share %s and -share %s: both mount at %s", o, s, s.Guest)
			case within(s.Guest, o.Guest):
				return fmt.Errorf("-share %s and -share %s: %s is inside %s, and shares cannot nest", o, s, s.Guest, o.Guest)
			case within(o.Guest, s.Guest):
				return fmt.Errorf("-share %s and -share %s: %s is inside %s, and shares cannot nest", o, s, o.Guest, s.Guest)
			}
		}
		for _, p := range packed {
			switch {
			case s.Guest == p:
				return fmt.Errorf("-share %s: -files puts packed files at %s too", s, p)
			case within(s.Guest, p):
				return fmt.Errorf("-share %s: %s is inside %s, where -files puts packed files, and the two cannot nest", s, s.Guest, p)
			case within(p, s.Guest):
				return fmt.Errorf("-share %s: -files puts packed files at %s, inside the share, and the two cannot nest", s, p)
			}
		}
	}
	return nil
}

// Overlaps reports whether the clean absolute guest path dir is s's GUESTDIR, or lies inside or
// around it: a share there would hide s or need a mount point inside it.
func (s Share) Overlaps(dir string) bool {
	return s.Guest == dir || within(s.Guest, dir) || within(dir, s.Guest)
}

// within reports whether the clean absolute path inner lies below outer.
func within(inner, outer string) bool {
	return strings.HasPrefix(inner, outer+"/")
}

// shareArgs returns QEMU's options for the shares: per share, a local -fsdev exporting the host
// directory (security_model=none: files are created as the user QEMU runs as, with the modes
// the guest asks for; ownership changes the host refuses are ignored, and no attributes are
// mapped) and the virtio-9p-device serving it under its tag.
func shareArgs(shares []Share, m machine) ([]string, error) {
	if len(shares) == 0 {
		return nil, nil
	}
	if !m.virtioMMIO {
		return nil, fmt.Errorf("-share needs a virtio-mmio bus: machine %q has none (use -machine %s)", m.name, mmioMachine(m.arch))
	}
	if err := CheckShares(shares, nil); err != nil {
		return nil, err
	}
	var args []string
	for i, s := range shares {
		if !filepath.IsAbs(s.Host) {
			return nil, fmt.Errorf("-share %s: the host directory is not an absolute path", s)
		}
		if g, err := checkShareGuest(s.Guest); err != nil {
			return nil, fmt.Errorf("-share %s: %w", s, err)
		} else if g != s.Guest {
			return nil, fmt.Errorf("-share %s: GUESTDIR %q is not clean: %q", s, s.Guest, g)
		}
		// QEMU's option syntax reads ",," as a comma inside a value.
		fsdev := "local,id=" + shareFSDevID(i) + ",path=" + strings.ReplaceAll(s.Host, ",", ",,") + ",security_model=none"
		if s.ReadOnly {
			fsdev += ",readonly=on"
		}
		args = append(args,
			"-fsdev", fsdev,
			"-device", "virtio-9p-device,fsdev="+shareFSDevID(i)+",mount_tag="+ShareTag(i))
	}
	return args, nil
}

// shareOptions returns the kernel option of each share, in order: unitrace.share=TAG:GUESTDIR,
// with :ro for a read-only one.
func shareOptions(shares []Share) []string {
	var words []string
	for i, s := range shares {
		w := boot.ShareOption + ShareTag(i) + ":" + s.Guest
		if s.ReadOnly {
			w += readOnlySuffix
		}
		words = append(words, w)
	}
	return words
}

// ShareFlag collects repeated -share HOSTDIR:GUESTDIR[:ro] flags (a flag.Value).
type ShareFlag []Share

func (f *ShareFlag) String() string {
	var parts []string
	for _, s := range *f {
		parts = append(parts, s.String())
	}
	return strings.Join(parts, " ")
}

// Set parses one HOSTDIR:GUESTDIR[:ro].
func (f *ShareFlag) Set(s string) error {
	sh, err := parseShare(s)
	if err != nil {
		return err
	}
	*f = append(*f, sh)
	return nil
}
