package procfs

import "github.com/unitrace/unitrace/decimal"

// text is where a generator writes a file's contents: through a window onto the whole text, so
// that only the bytes at [off, off+len(dst)) land in dst and the rest are only counted. A read at
// any offset generates the text from its start and keeps what it asked for: no buffer holds a
// whole file, and a file can be as long as its contents are.
type text struct {
	dst []byte
	off int64 // offset in the text of dst[0]
	pos int64 // bytes generated so far
}

// newText starts a window of dst at offset off; a nil dst only counts.
func newText(dst []byte, off int64) text { return text{dst: dst, off: off} }

// n is the number of bytes that landed in dst.
func (t *text) n() int {
	if t.pos <= t.off {
		return 0
	}
	return int(min(t.pos-t.off, int64(len(t.dst))))
}

// full reports whether dst is full: what comes next would land nowhere.
func (t *text) full() bool { return t.dst != nil && t.pos >= t.off+int64(len(t.dst)) }

func (t *text) bytes(b []byte) {
	if t.dst != nil && t.pos+int64(len(b)) > t.off && t.pos < t.off+int64(len(t.dst)) {
		from := max(t.off-t.pos, 0) // first byte of b that lands
		at := t.pos + from - t.off  // where in dst it lands
		copy(t.dst[at:], b[from:])
	}
	t.pos += int64(len(b))
}

func (t *text) str(s string) {
	if t.dst != nil && t.pos+int64(len(s)) > t.off && t.pos < t.off+int64(len(t.dst)) {
		from := max(t.off-t.pos, 0)
		at := t.pos + from - t.off
		copy(t.dst[at:], s[from:])
	}
	t.pos += int64(len(s))
}

func (t *text) byte(c byte) {
	if t.dst != nil && t.pos >= t.off && t.pos < t.off+int64(len(t.dst)) {
		t.dst[t.pos-t.off] = c
	}
	t.pos++
}

// pad writes n copies of c.
func (t *text) pad(c byte, n int) {
	for ; n > 0; n-- {
		t.byte(c)
	}
}

// dec writes v in decimal.
func (t *text) dec(v uint64) { t.decw(v, 0, ' ') }

// int writes v in decimal, with a minus sign if it is negative.
func (t *text) int(v int64) {
	if v < 0 {
		t.byte('-')
		t.dec(uint64(-v))
		return
	}
	t.dec(uint64(v))
}

// decw writes v in decimal, right-aligned in width columns filled with fill.
func (t *text) decw(v uint64, width int, fill byte) {
	var d decimal.Digits
	digits := d.Uint(v)
	t.pad(fill, width-len(digits))
	t.bytes(digits)
}

// radix writes v in base 8 or 16 (lower-case digits), at least digits of them, zero-filled.
func (t *text) radix(v uint64, base uint64, digits int) {
	var b [22]byte
	i := len(b)
	for v != 0 || len(b)-i < digits {
		i--
		b[i] = "0123456789abcdef"[v%base]
		v /= base
		if i == 0 {
			break
		}
	}
	t.bytes(b[i:])
}

// hex writes v in lower-case hexadecimal, at least digits of them, zero-filled.
func (t *text) hex(v uint64, digits int) { t.radix(v, 16, max(digits, 1)) }

// centis writes ns nanoseconds as seconds with two decimals, as /proc/uptime does.
func (t *text) centis(ns int64) {
	if ns < 0 {
		ns = 0
	}
	cs := uint64(ns / 10_000_000)
	t.dec(cs / 100)
	t.byte('.')
	t.decw(cs%100, 2, '0')
}

// kB writes a meminfo line: the label (with its colon) padded to 16 columns, the value in KiB
// right-aligned in 8, and " kB".
func (t *text) kB(label string, kib uint64) {
	t.str(label)
	t.pad(' ', 16-len(label))
	t.decw(kib, 8, ' ')
	t.str(" kB\n")
}

// field writes a "name:\tvalue" line's start: the name, its colon and a tab (status).
func (t *text) field(name string) {
	t.str(name)
	t.str(":\t")
}

// cpuDec writes a cpuinfo line whose value is v in decimal.
func (t *text) cpuDec(name string, v uint64) {
	t.cpuField(name)
	t.dec(v)
	t.byte('\n')
}

// fixed writes v, a count of 10^-digits units, as a decimal fraction with digits decimals.
func (t *text) fixed(v uint64, digits int) {
	unit := uint64(1)
	for range digits {
		unit *= 10
	}
	t.dec(v / unit)
	t.byte('.')
	t.decw(v%unit, digits, '0')
}

// cpuField writes a cpuinfo line's start: the name, tabs to column 16 (tab stops of 8) unless it
// reaches that far, and ": ".
func (t *text) cpuField(name string) {
	t.str(name)
	if len(name) < 16 {
		t.byte('\t')
	}
	if len(name) < 8 {
		t.byte('\t')
	}
	t.str(": ")
}

// decLen is the number of decimal digits of v.
func decLen(v uint64) int {
	n := 1
	for v >= 10 {
		v /= 10
		n++
	}
	return n
}
