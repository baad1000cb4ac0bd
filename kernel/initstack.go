package kernel

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/boot"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/initstack"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/mm"
	"github.com/unitrace/unitrace/kernel/options"
	"github.com/unitrace/unitrace/kernel/syscalls/files"
)

// initialStackWindow is how much of the main thread's stack the initial process stack may use.
const initialStackWindow = 64 << 10

// argv0 is the program name in os.Args[0].
const argv0 = "/app"

// buildInitialStack maps the main thread's stack (demand-paged, like every user mapping) and
// writes the Linux initial process stack at its top from the command line. It returns the SP
// the runtime's entry point starts with.
func buildInitialStack() uintptr {
	if _, errno := core.Space.Map(core.StackLo, core.StackSize, mm.ProtRead|mm.ProtWrite, true); errno != 0 {
		klog.BootFault("cannot map the main thread's stack")
	}
	mem, ok := core.UserBytes(core.UserHi-initialStackWindow, initialStackWindow, true)
	if !ok {
		klog.BootFault("cannot populate the main thread's stack")
	}
	var argv, envv [boot.MaxWords + 1]string
	argv[0] = argv0
	nargs := options.Cmdline.NumArgs()
	for i := 0; i < nargs; i++ {
		argv[1+i] = options.Cmdline.Arg(i)
	}
	nenv := options.Cmdline.NumEnv()
	for i := 0; i < nenv; i++ {
		envv[i] = options.Cmdline.Env(i)
	}
	aux := initstack.Auxv{PageSize: core.PageSize, HWCap: machine.HWCap(), Platform: machine.Platform, SysinfoEHDR: uint64(setupVDSO())}
	for i := 0; i < len(aux.Random); i += 8 {
		binary.LittleEndian.PutUint64(aux.Random[i:], files.Random64())
	}
	sp, errno := initstack.Build(mem, core.UserHi, argv[:1+nargs], envv[:nenv], aux)
	if errno != 0 {
		klog.BootFault("the command line does not fit the initial stack")
	}
	return sp
}
