package packfiles

import (
	"errors"
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"

	"github.com/unitrace/unitrace/kernel/fs/cpio"
)

// Dir is one HOSTDIR:GUESTDIR pair: a directory of the host and where its contents appear in the
// guest.
type Dir struct {
	Host  string
	Guest string // absolute and clean, neither / nor /dev
}

func (d Dir) String() string { return d.Host + ":" + d.Guest }

// ParseDir parses HOSTDIR:GUESTDIR. The last colon splits it: HOSTDIR may hold colons, GUESTDIR
// may not. GUESTDIR must be absolute without a ".." component; it is cleaned ("/data/" is
// "/data").
func ParseDir(s string) (Dir, error) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return Dir{}, fmt.Errorf("%q is not HOSTDIR:GUESTDIR", s)
	}
	d := Dir{Host: s[:i], Guest: s[i+1:]}
	if d.Host == "" {
		return Dir{}, fmt.Errorf("%q: HOSTDIR is empty", s)
	}
	g, err := cleanGuest(d.Guest)
	if err != nil {
		return Dir{}, fmt.Errorf("%q: %w", s, err)
	}
	d.Guest = g
	return d, nil
}

func cleanGuest(g string) (string, error) {
	if !strings.HasPrefix(g, "/") {
		return "", fmt.Errorf("GUESTDIR %q is not an absolute path", g)
	}
	if slicesContains(strings.Split(g, "/"), "..") {
		return "", fmt.Errorf("GUESTDIR %q has a .. component", g)
	}
	g = path.Clean(g)
	switch {
	case g == "/":
		return "", errors.New("GUESTDIR / would hide the root file system: pack into a directory below it")
	case g == "/dev":
		return "", errors.New("GUESTDIR /dev would hide the kernel's devices")
	case g[1:] == cpio.Trailer:
		return "", fmt.Errorf("GUESTDIR /%s is the name that ends a cpio archive", cpio.Trailer)
	}
	return g, nil
}

func slicesContains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// Flag collects repeated -files HOSTDIR:GUESTDIR flags (a flag.Value).
type Flag []Dir

func (f *Flag) String() string {
	var parts []string
	for _, d := range *f {
		parts = append(parts, d.String())
	}
	return strings.Join(parts, " ")
}

// Set parses one HOSTDIR:GUESTDIR.
func (f *Flag) Set(s string) error {
	d, err := ParseDir(s)
	if err != nil {
		return err
	}
	*f = append(*f, d)
	return nil
}

// ParseMTime parses a -files-mtime value: seconds since the epoch, 0 to 2^32-1 (newc's range).
func ParseMTime(s string) (uint32, error) {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v > math.MaxUint32 {
		return 0, fmt.Errorf("%q is not a time in seconds since the epoch from 0 to %d", s, uint64(math.MaxUint32))
	}
	return uint32(v), nil
}
