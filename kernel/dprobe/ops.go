package dprobe

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/le"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/probe"
	"github.com/unitrace/unitrace/trace"
)

// The probe operations the trace agent asks for (trace.CtlProbe*), under the kernel lock. Each
// returns a system call's result: 0 or a count, or -errno (the agent says what each means).

// Stage adds the site in the SiteSize bytes at buf to probe n (a number New gave), not yet
// armed: EINVAL for a malformed site or probe number, ESRCH for a number not taken, EBUSY when
// n is armed, ENOENT when no function of the image holds its pc, EPERM when that function is on
// the deny list, EEXIST when the pc has a site already, EIO when the code at pc is not the
// site's, ENOSPC when every site is taken.
func Stage(n, buf uint64) uint64 {
	if n == 0 || n > MaxProbes {
		return abi.Neg(abi.EINVAL)
	}
	b, ok := core.UserBytes(uintptr(buf), probe.SiteSize, false)
	if !ok {
		return abi.Neg(abi.EFAULT)
	}
	s, in, e := probe.ParseSite(b, machine.ProbeArch, machine.ProbeIntRegs)
	if e != probe.OK {
		return abi.Neg(abi.EINVAL)
	}
	switch f := probes[n].Load(); {
	case f&probeUsed == 0:
		return abi.Neg(abi.ESRCH) // take a number first (New)
	case f&probeArmed != 0:
		return abi.Neg(abi.EBUSY)
	}
	pc := uintptr(s.PC)
	if errno := checkSite(pc, s.Code[:s.Len]); errno != 0 {
		return abi.Neg(errno)
	}
	free := -1
	for i := range sites {
		st := sites[i].state.Load()
		if st != siteFree && sites[i].pc == pc {
			return abi.Neg(abi.EEXIST)
		}
		if st == siteFree && free < 0 {
			free = i
		}
	}
	if free < 0 {
		return abi.Neg(abi.ENOSPC)
	}
	x := &sites[free]
	x.probe, x.kind, x.pc, x.code, x.len, x.insn = uint16(n), s.Kind, pc, s.Code, s.Len, in
	x.strings, x.nstrings, x.stringBytes = s.Strings, s.NStrings, s.StringBytes
	x.hits.Store(0)
	x.state.Store(siteStaged)
	return 0
}

// checkSite checks that pc lies in a function of the running image that the deny list allows,
// and that code is what its text holds.
func checkSite(pc uintptr, code []byte) int {
	lo, hi := machine.TextRange()
	if pc < lo || pc+uintptr(len(code)) > hi {
		return abi.ENOENT
	}
	t, ok := machine.ImageSymtab()
	if !ok {
		return abi.ENOENT
	}
	fn, ok := t.FuncAt(pc)
	if !ok || pc+uintptr(len(code)) > fn.End {
		return abi.ENOENT
	}
	if _, denied := probe.Denied(fn.Name); denied {
		return abi.EPERM
	}
	text := machine.BytesAt(pc, uintptr(len(code)))
	for i := range code {
		if text[i] != code[i] {
			return abi.EIO
		}
	}
	return 0
}

// hasSites reports whether probe n has a site in use.
func hasSites(n uint16) bool {
	for i := range sites {
		if sites[i].state.Load() != siteFree && sites[i].probe == n {
			return true
		}
	}
	return false
}

// Arm writes the breakpoints of probe n's staged sites, returns first, and returns how many it
// armed: EINVAL for a bad probe number, ESRCH for a probe with no site, EBUSY when it is armed
// already, ENOSPC when the pc table is full (nothing is armed then).
func Arm(n uint64, backtrace bool) uint64 {
	if n == 0 || n > MaxProbes {
		return abi.Neg(abi.EINVAL)
	}
	f := probes[n].Load()
	switch {
	case f&probeUsed == 0:
		return abi.Neg(abi.ESRCH)
	case f&probeArmed != 0:
		return abi.Neg(abi.EBUSY)
	}
	if !hasSites(uint16(n)) {
		return abi.Neg(abi.ESRCH)
	}
	if backtrace {
		f |= probeBacktrace
	} else {
		f &^= probeBacktrace
	}
	probes[n].Store(f | probeArmed)
	armed := uint64(0)
	for _, entries := range [...]bool{false, true} {
		for i := range sites {
			s := &sites[i]
			if s.state.Load() != siteStaged || s.probe != uint16(n) || s.kind.IsEntry() != entries {
				continue
			}
			if !insert(i) {
				probes[n].Store(f &^ probeArmed)
				disarm(uint16(n))
				return abi.Neg(abi.ENOSPC)
			}
			s.state.Store(siteArmed)
			core.PatchText(s.pc, machine.Breakpoint[:])
			armed++
		}
	}
	syncCPUs()
	return armed
}

// Remove takes probe n away: its breakpoints, then (once every CPU has synchronised, so no hit
// is still being counted) its sites. It returns the hits its sites counted, all of them:
// EINVAL for a bad probe number, ESRCH for an unused one.
func Remove(n uint64) uint64 {
	if n == 0 || n > MaxProbes {
		return abi.Neg(abi.EINVAL)
	}
	if probes[n].Load()&probeUsed == 0 {
		return abi.Neg(abi.ESRCH)
	}
	restore(uint16(n))
	hits := hitCount(n)
	free(uint16(n))
	probes[n].Store(0)
	return hits
}

// disarm takes probe n's breakpoints away and frees its sites.
func disarm(n uint16) {
	restore(n)
	free(n)
}

// restore puts back the instructions of probe n's armed sites (entries first), marks the sites
// removed, and waits until every CPU has synchronised: none is in a handler that counts a hit of
// n's any more. A CPU may still run a breakpoint it fetched before the write (TCG can run code it
// translated before another CPU wrote it, even after an interrupt); its handler then finds the
// site removed and runs the instruction again, neither counted nor recorded.
func restore(n uint16) {
	restored := false
	for _, entries := range [...]bool{true, false} {
		for i := range sites {
			s := &sites[i]
			if s.state.Load() == siteArmed && s.probe == n && s.kind.IsEntry() == entries {
				core.PatchText(s.pc, s.code[:len(machine.Breakpoint)])
				s.state.Store(siteRemoved)
				restored = true
			}
		}
	}
	if restored {
		syncCPUs()
	}
}

// free takes probe n's sites out of the pc table and frees them; their breakpoints are gone.
func free(n uint16) {
	for i := range sites {
		s := &sites[i]
		if st := s.state.Load(); st != siteFree && s.probe == n {
			if st == siteArmed || st == siteRemoved {
				remove(i)
			}
			s.state.Store(siteFree)
		}
	}
}

// New takes an unused probe number and returns it: ENOSPC when all are taken.
func New() uint64 {
	for n := 1; n <= MaxProbes; n++ {
		if probes[n].Load()&probeUsed == 0 {
			probes[n].Store(probeUsed)
			return uint64(n)
		}
	}
	return abi.Neg(abi.ENOSPC)
}

// List writes one entry per site in use into the size bytes at buf and returns how many sites
// there are (EFAULT for a buffer it cannot write; the entries past its end are left out).
func List(buf, size uint64) uint64 {
	n := uint64(0)
	for i := range sites {
		s := &sites[i]
		st := s.state.Load()
		if st == siteFree {
			continue
		}
		if (n+1)*trace.ProbeListEntrySize <= size {
			b, ok := core.UserBytes(uintptr(buf+n*trace.ProbeListEntrySize), trace.ProbeListEntrySize, true)
			if !ok {
				return abi.Neg(abi.EFAULT)
			}
			armed := uint8(0)
			if st == siteArmed {
				armed = 1
			}
			w := le.Writer{B: b}
			w.U16(s.probe)
			w.U8(uint8(s.kind))
			w.U8(armed)
			w.U32(0)
			w.U64(uint64(s.pc))
			w.U64(s.hits.Load())
		}
		n++
	}
	return n
}

// hitCount returns the hits of probe n's sites so far.
func hitCount(n uint64) uint64 {
	total := uint64(0)
	for i := range sites {
		if s := &sites[i]; s.state.Load() != siteFree && s.probe == uint16(n) {
			total += s.hits.Load()
		}
	}
	return total
}

// syncCPUs has every other CPU synchronise with this one: once it returns, each has taken an
// interrupt since the caller's last text write, so it fetches the new instruction, and has left
// any breakpoint handler it was in (core.XcallSync).
func syncCPUs() {
	if core.OnlineCPUs() > 1 {
		core.CrossCall(core.XcallSync, 0)
	}
}
