package syscalls

import (
	"unsafe"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/dev/shares"
	"github.com/unitrace/unitrace/kernel/machine"
)

// The table of system calls, reached from the rerun by its address: a direct reference from
// code a handler can reach (the rerun runs in the scheduler, which every blocking handler
// reaches) would make the table's static initialisation depend on itself, which Go refuses.
// Init takes the address, before any system call.
var (
	sysTableAt  uintptr
	sysTableLen int
)

// rerunSyscall runs system call nr again, as dispatch does (the calls that reach a share are
// all in the table).
func rerunSyscall(f *machine.Frame, nr uint64, a machine.SyscallArgs) (uint64, bool) {
	if sysTableAt == 0 || nr >= uint64(sysTableLen) {
		return abi.Neg(abi.ENOSYS), true
	}
	c := unsafe.Slice((*sysCall)(machine.Ptr(sysTableAt)), sysTableLen)[nr]
	if c.handler == nil {
		return abi.Neg(abi.ENOSYS), true
	}
	return c.handler(f, a)
}

// CompleteShareWait runs the system call of the thread in slot again after its share's reply.
func CompleteShareWait(f *machine.Frame, slot int32) {
	t := &core.Threads[slot]
	var a machine.SyscallArgs
	machine.SysArgs(f, &a)
	shares.BeginFiles(slot)
	ret, done := rerunSyscall(f, t.SysNr, a)
	if shares.EndFiles(f, slot, ret, done, true) {
		machine.SetSysRet(f, ret)
	}
}

// Init readies the system calls: the rerun's reach to the table. The kernel calls it at boot,
// before the program starts.
func Init() { sysTableAt, sysTableLen = uintptr(unsafe.Pointer(&sysTable)), len(sysTable) }
