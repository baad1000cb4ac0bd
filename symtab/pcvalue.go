package symtab

// pcvalue decodes the pc-value table at offset tab of the pctab for function
// f and returns the value in effect at text offset target, as the runtime's
// pcvalue does. ok is false when f has no such table (offset 0), when the
// table ends before target, or when it runs off the pctab.
//
// The encoding (cmd/internal/obj/pcln.go): pairs of a zig-zag varint value
// delta and a varint pc delta in units of the instruction quantum, starting
// from value -1 at the entry; a zero value delta after the first pair ends
// the table. Each value holds for [previous pc, new pc).
func (t *Table) pcvalue(f fun, tab uint32, target uint64) (int32, bool) {
	if tab == 0 {
		return -1, false
	}
	p := t.pctab.start + uint64(tab)
	pc := f.entry
	val := int32(-1)
	// Each step reads at least two bytes, so the loop ends within the pctab.
	for t.pctab.contains(p, 1) {
		uv, n := uvarint(t.tab, t.pctab, p)
		if n == 0 || (uv == 0 && pc != f.entry) {
			return -1, false
		}
		p += n
		val += int32(-(uv & 1) ^ (uv >> 1))
		pcDelta, n := uvarint(t.tab, t.pctab, p)
		if n == 0 {
			return -1, false
		}
		p += n
		pc += uint64(pcDelta) * t.quantum
		if target < pc {
			return val, true
		}
	}
	return -1, false
}

// pcmax returns the largest value that the pc-value table at offset tab of
// f takes inside f, or -1 when there is no such table or it is corrupt.
func (t *Table) pcmax(f fun, tab uint32) int32 {
	if tab == 0 {
		return -1
	}
	p := t.pctab.start + uint64(tab)
	pc := f.entry
	val, most := int32(-1), int32(-1)
	for pc < f.end && t.pctab.contains(p, 1) {
		uv, n := uvarint(t.tab, t.pctab, p)
		if n == 0 || (uv == 0 && pc != f.entry) {
			break
		}
		p += n
		val += int32(-(uv & 1) ^ (uv >> 1))
		pcDelta, n := uvarint(t.tab, t.pctab, p)
		if n == 0 {
			return -1
		}
		p += n
		pc += uint64(pcDelta) * t.quantum
		most = max(most, val)
	}
	return most
}
