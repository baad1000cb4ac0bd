package ctl

// Match reports whether name matches the glob pattern: '*' matches any run
// of bytes (also empty), '?' any one byte, every other byte itself. There
// are no escapes or classes (tracepoint names have no glob characters).
//
// It runs in O(len(pattern)·len(name)) without recursion: on a mismatch it
// backtracks only to the last '*', which is enough for globs.
func Match(pattern []byte, name string) bool {
	p, n := 0, 0
	starP, starN := -1, 0
	for n < len(name) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			starP, starN = p, n
			p++
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == name[n]):
			p++
			n++
		case starP >= 0:
			starN++
			p, n = starP+1, starN
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
