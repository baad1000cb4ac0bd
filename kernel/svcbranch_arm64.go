package kernel

import (
	"github.com/unitrace/unitrace/arch/arm64"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/options"
)

// System-call sites rewritten into branches (arch/arm64/svc.go): the first SVC exception from a
// site asks for it, the trap rewrites it under the kernel lock, and the site's later calls
// branch into the kernel without an exception.

// svcBranchSite returns the address of the SVC #0 that the thread's system call in f came from
// when it should be rewritten into a branch, else 0. It runs on every system call: a call that
// came by a branch (Frame.Jump) is done at once, an SVC exception costs one load from the text
// just executed.
//
//go:nosplit
func svcBranchSite(f *machine.Frame) uintptr {
	if f.Jump != 0 || options.Kernel.NoSVCBranch || !arm64.SVCSlotsLeft() {
		return 0
	}
	site := uintptr(f.ELR) - 4
	if !arm64.SVCBranchable(*(*uint32)(machine.Ptr(site)), f.SPSR) {
		return 0
	}
	return site
}

// branchSVC rewrites the SVC #0 at site (from svcBranchSite) into a branch to a slot of its own.
// The caller holds the kernel lock, which orders it with another CPU's rewrite of the same
// site: a site already rewritten is left alone. Other CPUs need no synchronisation: one that
// still fetches the SVC takes the exception as before.
func branchSVC(site uintptr) {
	if *(*uint32)(machine.Ptr(site)) != arm64.SVCInstruction {
		return
	}
	insn, ok := arm64.ClaimSVCSlot(site)
	if !ok {
		return
	}
	code := [4]byte{byte(insn), byte(insn >> 8), byte(insn >> 16), byte(insn >> 24)}
	core.PatchText(site, code[:])
}

// reportSVCBranches says, with unitrace.verbose=1, how many call sites branch into the kernel.
func reportSVCBranches() {
	if options.Kernel.Verbose {
		klog.Log().S("system calls: ").D(int64(arm64.SVCSlotsUsed())).S(" call sites branch into the kernel").NL()
	}
}
