package symtab

// The host's view of the inline trees (the probes' resolver): it allocates, so it lives in a
// file the kernel-mode check skips.

// InlinedCall is one call the compiler inlined into a function: the callee's name, the call's
// parent pc (where the runtime's traceback says the caller was: an instruction of the caller at
// the call's position) and the inlined body's start, the lowest pc of its code (or of the code
// of a call inlined into it).
type InlinedCall struct {
	Name      []byte
	ParentPC  uintptr
	BodyStart uintptr
}

// InlinedCalls appends to dst the calls inlined into the physical function that holds pc, at
// every depth (a call inlined into an inlined body is one too), and returns it. It returns dst
// unchanged when no function holds pc, or the table has no inline trees. A body the compiler
// left no code of is left out.
func (t *Table) InlinedCalls(pc uintptr, dst []InlinedCall) []InlinedCall {
	f, _, ok := t.findFunc(pc)
	if !ok || t.gofunc == 0 {
		return dst
	}
	tree := t.funcdataOffset(f, funcdataInlTree)
	tab := t.pcdataOffset(f, pcdataInlTreeIndex)
	if tree == ^uint32(0) || tab == 0 {
		return dst
	}
	n := t.pcmax(f, tab)
	if n < 0 || n > maxInlineTree {
		return dst
	}
	record := func(ix int32) uint64 { return t.gofunc + uint64(tree) + uint64(ix)*inlCallSize }
	start := make([]uint64, n+1) // the lowest offset of each body's code, 0 for none yet
	t.pcranges(f, tab, func(lo uint64, ix int32) {
		// The code at lo belongs to call ix and to every call ix is inlined into.
		for d := 0; ix >= 0 && ix <= n && d < maxInlineDepth; d++ {
			if start[ix] == 0 || lo < start[ix] {
				start[ix] = lo
			}
			call, ok := t.inlCallAt(record(ix))
			if !ok || call.parentPC < 0 {
				return
			}
			ix, _ = t.inlineIndex(f, f.entry+uint64(call.parentPC))
		}
	})
	for ix := int32(0); ix <= n; ix++ {
		call, ok := t.inlCallAt(record(ix))
		if !ok || call.parentPC < 0 || f.entry+uint64(call.parentPC) >= f.end || start[ix] == 0 {
			continue
		}
		name, ok := t.name(call.nameOff)
		if !ok {
			continue
		}
		dst = append(dst, InlinedCall{Name: name, ParentPC: t.text + uintptr(f.entry+uint64(call.parentPC)),
			BodyStart: t.text + uintptr(start[ix])})
	}
	return dst
}

// maxInlineTree bounds the records of one inline tree InlinedCalls reads.
const maxInlineTree = 1 << 16

// pcranges calls fn for each run of the pc-value table at offset tab of f, in address order,
// with its first pc (as an absolute text offset) and its value. It stops at the end of the
// table or at the first malformed entry. Its loop is pcvalue's, written again: a shared step
// function is not inlined, and costs the kernel's table step (FrameAt) 12-15% (BenchmarkFrameAt).
func (t *Table) pcranges(f fun, tab uint32, fn func(lo uint64, val int32)) {
	if tab == 0 {
		return
	}
	p := t.pctab.start + uint64(tab)
	pc := f.entry
	val := int32(-1)
	for t.pctab.contains(p, 1) {
		uv, n := uvarint(t.tab, t.pctab, p)
		if n == 0 || (uv == 0 && pc != f.entry) {
			return
		}
		p += n
		val += int32(-(uv & 1) ^ (uv >> 1))
		pcDelta, n := uvarint(t.tab, t.pctab, p)
		if n == 0 || pcDelta == 0 {
			return
		}
		p += n
		fn(pc, val)
		pc += uint64(pcDelta) * t.quantum
		if pc >= f.end {
			return
		}
	}
}
