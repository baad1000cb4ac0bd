package syscalls

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/machine"

	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/loadavg"
	"github.com/unitrace/unitrace/kernel/rlimit"
	"github.com/unitrace/unitrace/kernel/sched"
)

// The machine and the process, as sysinfo, gettimeofday, time, rt_sigpending and the resource
// limits report them.

// struct sysinfo (include/uapi/linux/sysinfo.h) on a 64-bit machine: uptime, three load
// averages, six memory counters, procs (a short), two more counters, mem_unit; 112 bytes.
const (
	sysinfoSize     = 112
	sysinfoLoads    = 8
	sysinfoTotalRAM = 32
	sysinfoFreeRAM  = 40
	sysinfoShared   = 48
	sysinfoProcs    = 80
	sysinfoMemUnit  = 104
	siLoadShift     = 16 // SI_LOAD_SHIFT: the load averages' fraction bits
)

// loads are the load averages: a sample of the threads running or runnable every 5 s, as
// Linux's, taken by the ticks that run under the kernel lock and made up by sysinfo for the
// periods when no tick needed the lock (the machine ran one thread, or none).
var loads loadavg.Avg

// SampleLoad folds the threads running or waiting to run into the load averages, if a sample is
// due. It runs under the kernel lock.
func SampleLoad(now int64) {
	if !loads.Due(now) {
		return
	}
	active := 0
	for s := int32(core.FirstThreadSlot); s < core.MaxThreads; s++ {
		if st := core.Scheduler.State(s); st == sched.Running || st == sched.Runnable {
			active++
		}
	}
	loads.Update(now, active)
}

func Sysinfo(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	addr := uintptr(a[0])
	b, ok := core.UserBytes(addr, sysinfoSize, true)
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	now := machine.Nanotime()
	SampleLoad(now)
	clear(b)
	up := now / 1e9
	if now%1e9 != 0 {
		up++ // Linux rounds the uptime up
	}
	binary.LittleEndian.PutUint64(b[0:], uint64(up))
	for i, l := range loads.Scaled(siLoadShift) {
		binary.LittleEndian.PutUint64(b[sysinfoLoads+8*i:], l)
	}
	st := core.Frames.Stats()
	binary.LittleEndian.PutUint64(b[sysinfoTotalRAM:], uint64(st.Total)*core.PageSize)
	binary.LittleEndian.PutUint64(b[sysinfoFreeRAM:], uint64(st.Free)*core.PageSize)
	binary.LittleEndian.PutUint64(b[sysinfoShared:], core.RootNS.MemPages()*core.PageSize) // tmpfs counts as shared, as Linux's shmem
	binary.LittleEndian.PutUint16(b[sysinfoProcs:], uint16(core.Live))
	binary.LittleEndian.PutUint32(b[sysinfoMemUnit:], 1)
	return 0, true
}

// Gettimeofday is the system call the vDSO's gettimeofday spares most programs: the
// wall clock in tv, and a zero timezone (Linux's sys_tz, never set here) in tz.
func Gettimeofday(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	tv := uintptr(a[0])
	tz := uintptr(a[1])
	if tv != 0 {
		b, ok := core.UserBytes(tv, 16, true)
		if !ok {
			return abi.Neg(abi.EFAULT), true
		}
		core.PutTimeval(b, core.BootWallNanos+machine.Nanotime())
	}
	if tz != 0 {
		b, ok := core.UserBytes(tz, 8, true)
		if !ok {
			return abi.Neg(abi.EFAULT), true
		}
		clear(b)
	}
	return 0, true
}

// Time is time(2): the wall clock's seconds, also stored at tloc unless it is NULL.
func Time(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	tloc := uintptr(a[0])
	sec := uint64((core.BootWallNanos + machine.Nanotime()) / 1e9)
	if tloc != 0 && !core.WriteUser64(tloc, sec) {
		return abi.Neg(abi.EFAULT), true
	}
	return sec, true
}

// RtSigpending is rt_sigpending(2): the signals pending for the calling thread that it
// blocks (the others would have been delivered), in the first size bytes of set; a size above
// the kernel's sigset_t is EINVAL.
func RtSigpending(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	set := uintptr(a[0])
	size := uintptr(a[1])
	if size > 8 {
		return abi.Neg(abi.EINVAL), true
	}
	t := core.Cur()
	pending := uint64((t.Sig.Pending | t.Sig.Timed) & t.Sig.Mask)
	b, ok := core.UserBytes(set, size, true)
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	for i := range b {
		b[i] = byte(pending >> (8 * i))
	}
	return 0, true
}

// rlimits are the process's resource limits, set up at the first call that asks (system calls
// come before package initialisation): Linux's defaults, RLIMIT_NOFILE the descriptor table's
// size and RLIMIT_NPROC and RLIMIT_SIGPENDING the thread slots'. They are kept and reported:
// the kernel's own fixed limits (descriptors, threads, memory) are what bounds the program.
var (
	rlimits      rlimit.Table
	rlimitsReady bool
)

func limits() *rlimit.Table {
	if !rlimitsReady {
		rlimits.Init(rlimit.Config{MaxFDs: fd.MaxFDs, MaxThreads: core.MaxThreads - core.FirstThreadSlot})
		rlimitsReady = true
	}
	return &rlimits
}

// rlimitSize is struct rlimit64 (and struct rlimit on a 64-bit machine): rlim_cur, rlim_max.
const rlimitSize = 16

func readRlimit(addr uintptr) (rlimit.Limit, bool) {
	b, ok := core.UserBytes(addr, rlimitSize, false)
	if !ok {
		return rlimit.Limit{}, false
	}
	return rlimit.Limit{Cur: binary.LittleEndian.Uint64(b[0:]), Max: binary.LittleEndian.Uint64(b[8:])}, true
}

func writeRlimit(addr uintptr, l rlimit.Limit) bool {
	b, ok := core.UserBytes(addr, rlimitSize, true)
	if !ok {
		return false
	}
	binary.LittleEndian.PutUint64(b[0:], l.Cur)
	binary.LittleEndian.PutUint64(b[8:], l.Max)
	return true
}

// Prlimit64 is prlimit64(2) in Linux's order: the new limits are read (EFAULT), the
// process found (0, the pid or one of its threads' tids; else ESRCH), the change checked and
// made (EINVAL, EPERM), and the old limits written (EFAULT, the change made all the same).
func Prlimit64(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	pid := int32(a[0])
	resource := int(uint32(a[1]))
	newAddr := uintptr(a[2])
	oldAddr := uintptr(a[3])
	var newLim rlimit.Limit
	if newAddr != 0 {
		var ok bool
		if newLim, ok = readRlimit(newAddr); !ok {
			return abi.Neg(abi.EFAULT), true
		}
	}
	if pid != 0 && pid != core.ProcessID && core.SlotOfTID(pid) < 0 {
		return abi.Neg(abi.ESRCH), true
	}
	t := limits()
	old, errno := t.Get(resource)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	if newAddr != 0 {
		if _, errno := t.Set(resource, newLim); errno != 0 {
			return abi.Neg(errno), true
		}
	}
	if oldAddr != 0 && !writeRlimit(oldAddr, old) {
		return abi.Neg(abi.EFAULT), true
	}
	return 0, true
}

func Getrlimit(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	resource := int(uint32(a[0]))
	addr := uintptr(a[1])
	l, errno := limits().Get(resource)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	if !writeRlimit(addr, l) {
		return abi.Neg(abi.EFAULT), true
	}
	return 0, true
}

func Setrlimit(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	resource := int(uint32(a[0]))
	addr := uintptr(a[1])
	l, ok := readRlimit(addr)
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	_, errno := limits().Set(resource, l)
	return abi.ErrnoOr(errno, 0), true
}
