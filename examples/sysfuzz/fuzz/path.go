package fuzz

import "bytes"

// Names are the names the fuzzer makes and uses in its scratch directory: a few files,
// directories and links, some of them nested. None has a ".." component and none is absolute.
var Names = []string{"a", "b", "c", "d", "d/a", "d/e", "d/e/f", "e", "l", "m", "d/l", "x/y", ".", "d/."}

// Limits a path may exceed (Linux's PATH_MAX and NAME_MAX).
const (
	PathMax = 4096
	NameMax = 255
)

// PathKind is what Path made.
type PathKind int

const (
	PathName          PathKind = iota // one of Names
	PathAbs                           // one of Names under the scratch directory's absolute path
	PathGarbage                       // random bytes that are one component: no '/', no NUL, not "." or ".."
	PathLongComponent                 // a component longer than NAME_MAX
	PathTooLong                       // "a/a/…" longer than PATH_MAX
	PathEmpty                         // ""
	PathUnterminated                  // a name with no NUL after it: the caller puts it against a guard page
	pathKinds
)

// Path returns a path to hand the kernel, with its terminating NUL unless kind is
// PathUnterminated. scratch is the scratch directory's absolute path. Every path it returns
// passes Safe.
func Path(r *Rand, scratch string) (p []byte, kind PathKind) {
	kind = PathKind(r.Intn(int(pathKinds)))
	if r.Chance(1, 2) {
		kind = PathName // names that exist half of the time, or most calls would only say ENOENT
	}
	switch kind {
	case PathName:
		p = []byte(Pick(r, Names...))
	case PathAbs:
		p = []byte(scratch + "/" + Pick(r, Names...))
	case PathGarbage:
		n := 1 + r.Intn(40)
		p = make([]byte, n)
		for i := range p {
			b := byte(r.Uint64())
			if b == 0 || b == '/' {
				b = 'g'
			}
			p[i] = b
		}
		if string(p) == "." || string(p) == ".." {
			p = append(p, 'g')
		}
	case PathLongComponent:
		p = bytes.Repeat([]byte{'n'}, NameMax+1+r.Intn(300))
		if r.Chance(1, 2) {
			p = append([]byte("d/"), p...)
		}
	case PathTooLong:
		p = bytes.Repeat([]byte("a/"), PathMax/2+1+r.Intn(100))
		p = p[:len(p)-1]
	case PathEmpty:
		p = nil
	case PathUnterminated:
		p = []byte(Pick(r, Names...))
		return p, kind
	}
	return append(p, 0), kind
}

// Target returns the target of a symbolic link the fuzzer makes: a name in the scratch directory,
// relative (resolved from the link's directory, inside the scratch directory) or absolute under
// it, or garbage of one component. Never "..", never a path outside.
func Target(r *Rand, scratch string) []byte {
	p, kind := Path(r, scratch)
	if kind == PathUnterminated {
		p = append(p, 0)
	}
	return p
}

// Safe reports whether the bytes p (up to a NUL, or all of them) name a path that cannot leave
// the scratch directory whose absolute path is scratch, when looked up from a directory inside
// it: no ".." component, and absolute only under scratch. The program checks every path it
// hands the kernel on the host with it.
func Safe(p []byte, scratch string) bool {
	if i := bytes.IndexByte(p, 0); i >= 0 {
		p = p[:i]
	}
	if len(p) > 0 && p[0] == '/' {
		pre := scratch + "/"
		if scratch == "" || scratch[0] != '/' || !bytes.HasPrefix(p, []byte(pre)) {
			return false
		}
		if bytes.Contains([]byte(scratch), []byte("/..")) {
			return false
		}
		p = p[len(pre):]
	}
	for _, c := range bytes.Split(p, []byte{'/'}) {
		if string(c) == ".." {
			return false
		}
	}
	return true
}
