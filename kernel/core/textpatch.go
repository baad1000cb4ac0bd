//go:build !unitrace_host

package core

import (
	"sync/atomic"

	"github.com/unitrace/unitrace/kernel/machine"
)

// Writing the kernel's text (the dynamic probes' breakpoints). The text is never written where
// it runs: its frame is mapped at textAlias, a page of kernel address space nothing else uses
// (just above the program's range, never handed to mmap), written there, and unmapped. The
// write is one store of the whole instruction (a byte on amd64, an aligned word on arm64), so
// another CPU fetching it sees the old instruction or the new one, never a mix.

// textAlias is the alias page's address.
const textAlias = UserHi

// PatchText stores code (1 byte, or 4 at a 4-byte aligned va) over the text at va and makes it
// visible to instruction fetch on this CPU; the caller holds the kernel lock (the page tables,
// the alias) and has every other CPU synchronise afterwards (a cross-CPU request: taking its
// interrupt is a context synchronisation on arm64). It reports false when va is not mapped or
// code is not a size it writes.
func PatchText(va uintptr, code []byte) bool {
	switch {
	case len(code) == 1:
	case len(code) == 4 && va&3 == 0:
	default:
		return false
	}
	pa, _, ok := kpt.Lookup(va)
	if !ok {
		return false
	}
	flags := machine.MaskInterrupts() // no migration between the map and the unmap: the TLB entry is this CPU's
	if !kpt.Map(textAlias, pa&^(PageSize-1), textAliasFlags, AllocFrame) {
		machine.RestoreInterrupts(flags)
		return false
	}
	syncTextAlias()
	machine.FlushLocalPage(textAlias) // a translation cached while the alias mapped another frame
	dst := textAlias + va&(PageSize-1)
	if len(code) == 1 {
		*(*byte)(machine.Ptr(dst)) = code[0] // a byte store is single-copy atomic
	} else {
		atomic.StoreUint32((*uint32)(machine.Ptr(dst)), uint32(code[0])|uint32(code[1])<<8|uint32(code[2])<<16|uint32(code[3])<<24)
	}
	kpt.Unmap(textAlias)
	machine.FlushLocalPage(textAlias)
	machine.SyncInstructions(va, uintptr(len(code)))
	machine.RestoreInterrupts(flags)
	return true
}
