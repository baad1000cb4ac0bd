//go:build !unitrace_host

package unwind

import (
	"sync/atomic"
	"unsafe"

	"github.com/unitrace/unitrace/symtab"
)

// The image's own function table, for the table steps (chain.go): the kernel loads it once at
// boot (LoadFuncTable); every lookup then rebuilds the symtab.Table from its Layout, which is
// plain integers, so the global holds no pointer and storing it needs no write barrier.
var (
	funcTable       symtab.Layout
	funcTableLoaded atomic.Bool
)

// LoadFuncTable reads the image's pclntab so that walks can step by its SP-delta tables where
// the frame-pointer chain cannot be trusted. The kernel calls it once at boot, before any walk
// may run on another CPU; without it (or when the table is not a Go 1.20+ one) walks follow
// the frame pointers alone. It reports whether the table was loaded.
func LoadFuncTable() bool {
	start, end := pclntabRange()
	text, _ := textRange()
	if end <= start {
		return false
	}
	t, ok := symtab.New(unsafe.Slice((*byte)(ptr(start)), end-start), text)
	if !ok {
		return false
	}
	funcTable = t.Layout
	funcTableLoaded.Store(true)
	return true
}

// funcFrame returns the SP delta at the instruction pc and the flags of the function holding
// it, from the image's table; ok is false when the table is not loaded or has no function or
// delta for pc. A cache of recent answers (frameCache) spares most lookups: a sampler's walks
// meet the same return addresses, and hot loops' pcs, again and again.
func funcFrame(pc uintptr) (delta int32, flag symtab.FuncFlag, ok bool) {
	if !funcTableLoaded.Load() {
		return 0, 0, false
	}
	text, _ := textRange()
	off := uint64(pc - text)
	if pc < text || off >= 1<<32 {
		return 0, 0, false
	}
	slot := &frameCache[uint32(off)*0x9e3779b1>>(32-frameCacheBits)]
	if e := slot.Load(); e>>32 == off && e&cacheValid != 0 {
		if e&cacheNone != 0 {
			return 0, 0, false
		}
		return int32(e & cacheDelta), symtab.FuncFlag(e >> cacheFlagShift & cacheFlagMask), true
	}
	start, end := pclntabRange()
	t := funcTable.Rebuild(unsafe.Slice((*byte)(ptr(start)), end-start))
	delta, flag, ok = t.FrameAt(pc)
	switch {
	case !ok:
		slot.Store(off<<32 | cacheValid | cacheNone)
	case uint64(delta) <= cacheDelta && uint64(flag) <= cacheFlagMask:
		slot.Store(off<<32 | cacheValid | uint64(flag)<<cacheFlagShift | uint64(delta))
	}
	return delta, flag, ok
}

// frameCache holds recent answers of funcFrame, direct-mapped by pc. Each entry is one word,
// stored and loaded whole, so CPUs that share it never see half an entry: the pc's offset from
// the text in bits 63-32, cacheValid, cacheNone (no function or delta there), the flags and
// the delta. 32 KiB: the return addresses of a large program's hot paths fit.
var frameCache [1 << frameCacheBits]atomic.Uint64

const (
	frameCacheBits = 12
	cacheValid     = 1 << 31
	cacheNone      = 1 << 30
	cacheFlagShift = 24
	cacheFlagMask  = 0x3f
	cacheDelta     = 1<<cacheFlagShift - 1
)
