package kernel

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/kernel/mm"
	"github.com/unitrace/unitrace/kernel/vdso"
)

// The vDSO: one page, mapped into the program's address space before it starts and named by
// AT_SYSINFO_EHDR, holding an ELF shared object whose clock functions (the arch's assembly,
// arch/*/vdso_*.s, copied out of the kernel's text) read the cycle counter with the clock's
// parameters at the page's end. The Go runtime then reads the monotonic and wall clocks without
// a system call, as on Linux: `time.Now` and the runtime's nanotime no longer enter the kernel,
// so they no longer appear in system-call records or strace output. Clocks the functions do not
// serve (the CPU-time ones) still make the system call. unitrace.vdso=0 turns it off.

// vdso.Base is the first page above the program's default mmap area, which stays free: a
// compile-time check that the two agree.
var (
	_ [vdso.Base - mmapBase]struct{}
	_ [mmapBase - vdso.Base]struct{}
)

// vdsoMaxCode bounds one function's code: a copy larger than this means the symbol table gave
// another function's range.
const vdsoMaxCode = 1024

// setupVDSO maps and builds the vDSO and returns its address, or 0 (said on the console) when it
// cannot: the program then makes system calls for its clock reads.
func setupVDSO() uintptr {
	if opts.noVDSO {
		return 0
	}
	got := sysMmapImpl(vdso.Base, vdso.PageSize, mm.ProtRead|mm.ProtWrite, mapPrivate|mapAnonymous|mapPopulate|mapFixedNoreplace, -1, 0)
	if int64(got) < 0 || got != vdso.Base {
		return vdsoFailed("its page cannot be mapped")
	}
	addr := uintptr(got)
	page, ok := userBytes(addr, vdso.PageSize, true)
	syms, haveSyms := kernelSymtab()
	if !ok || !haveSyms {
		return vdsoFailed("its page or the kernel's symbol table cannot be read")
	}
	var funcs [vdso.MaxFuncs]vdso.Func
	n := 0
	for _, e := range archVDSOFuncs() {
		entry, end, ok := syms.FuncRange(e.Entry)
		if !ok || entry != e.Entry || end-entry > vdsoMaxCode || n == len(funcs) {
			return vdsoFailed("a function's code cannot be found")
		}
		funcs[n] = vdso.Func{Name: e.Name, Code: bytesAt(entry, end-entry)}
		n++
	}
	var at [vdso.MaxFuncs]int
	if !vdso.Build(page, vdsoMachine, vdsoVersion, funcs[:n], at[:]) {
		return vdsoFailed("its functions do not fit its page")
	}
	params := uint64(addr) + vdso.ParamsOffset
	for i := 0; i < n; i++ {
		if archVDSOPatch(page[at[i]:at[i]+len(funcs[i].Code)], params) == 0 {
			return vdsoFailed("a function has no parameter address to patch")
		}
	}
	base, mult := archClockParams()
	p := page[vdso.ParamsOffset:]
	binary.LittleEndian.PutUint32(p[vdso.ParamSeq:], 0) // even: valid (the parameters never change)
	binary.LittleEndian.PutUint64(p[vdso.ParamBase:], base)
	binary.LittleEndian.PutUint64(p[vdso.ParamMult:], mult)
	binary.LittleEndian.PutUint64(p[vdso.ParamWall:], uint64(bootWallNanos))
	archSyncInstructions(addr, vdso.PageSize)
	if errno := int64(sysMprotectImpl(addr, vdso.PageSize, mm.ProtRead|mm.ProtExec)); errno != 0 {
		return vdsoFailed("its page cannot be made executable")
	}
	return addr
}

func vdsoFailed(why string) uintptr {
	klog().s("vdso: none (").s(why).s("): clock reads are system calls").nl()
	return 0
}
