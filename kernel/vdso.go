package kernel

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/mm"
	"github.com/unitrace/unitrace/kernel/options"
	"github.com/unitrace/unitrace/kernel/syscalls"
	"github.com/unitrace/unitrace/kernel/vdso"
)

// The vDSO: one page, mapped into the program's address space before it starts and named by
// AT_SYSINFO_EHDR, holding an ELF shared object whose clock functions (the arch's assembly,
// arch/*/vdso_*.s) read the cycle counter with the clock's parameters at the page's end. The Go
// runtime then reads the monotonic and wall clocks without a system call, as on Linux:
// `time.Now` and the runtime's nanotime no longer enter the kernel, so they no longer appear in
// system-call records or strace output. Clocks the functions do not serve (the CPU-time ones)
// still make the system call. unitrace.vdso=0 turns it off.
//
// The image builder lays the page out in vdsoImage, from the functions' code in the image
// (kernel/vdso/slot.go): the kernel only copies it and writes the parameters.

// vdso.Base is the first page above the program's default mmap area, which stays free: a
// compile-time check that the two agree.
var (
	_ [vdso.Base - core.MmapBase]struct{}
	_ [core.MmapBase - vdso.Base]struct{}
)

// vdsoImage is the vDSO's page as the image builder made it, or still the marker of an image
// that it did not patch.
var vdsoImage = vdso.Slot{Marker: [16]byte{'u', 'n', 'i', 't', 'r', 'a', 'c', 'e', ':', 'v', 'd', 's', 'o', ':', '-', '-'}}

// setupVDSO maps the vDSO and returns its address, or 0 (said on the console) when it cannot:
// the program then makes system calls for its clock reads.
func setupVDSO() uintptr {
	if options.Kernel.NoVDSO {
		return 0
	}
	if !vdsoImage.Filled() {
		return vdsoFailed("the image builder left its page empty")
	}
	if !machine.VDSOCodeLinked() {
		return vdsoFailed("its functions are not in the image")
	}
	got := syscalls.DoMmap(vdso.Base, vdso.PageSize, mm.ProtRead|mm.ProtWrite, syscalls.MapPrivate|syscalls.MapAnonymous|syscalls.MapPopulate|syscalls.MapFixedNoreplace, -1, 0)
	if int64(got) < 0 || got != vdso.Base {
		return vdsoFailed("its page cannot be mapped")
	}
	addr := uintptr(got)
	page, ok := core.UserBytes(addr, vdso.PageSize, true)
	if !ok {
		return vdsoFailed("its page cannot be written")
	}
	copy(page, vdsoImage.Marker[:])
	copy(page[len(vdsoImage.Marker):], vdsoImage.Rest[:])
	base, mult := machine.ClockParams()
	p := page[vdso.ParamsOffset:]
	binary.LittleEndian.PutUint32(p[vdso.ParamSeq:], 0) // even: valid (the parameters never change)
	binary.LittleEndian.PutUint64(p[vdso.ParamBase:], base)
	binary.LittleEndian.PutUint64(p[vdso.ParamMult:], mult)
	binary.LittleEndian.PutUint64(p[vdso.ParamWall:], uint64(core.BootWallNanos))
	machine.SyncInstructions(addr, vdso.PageSize)
	if errno := int64(syscalls.DoMprotect(addr, vdso.PageSize, mm.ProtRead|mm.ProtExec)); errno != 0 {
		return vdsoFailed("its page cannot be made executable")
	}
	return addr
}

func vdsoFailed(why string) uintptr {
	klog.Log().S("vdso: none (").S(why).S("): clock reads are system calls").NL()
	return 0
}
