package kernel

import (
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/dev/console"
	"github.com/unitrace/unitrace/kernel/dev/serial"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/observe"
	"github.com/unitrace/unitrace/kernel/syscalls"
	"github.com/unitrace/unitrace/kernel/syscalls/files"
)

// The composition root's wiring: what the layers below take from the ones above, handed down
// once, first thing at boot (wireKernel, from bootMain).

// wireKernel installs every hook.
func wireKernel() {
	wireWaits()
	serial.AgentDrain.Set(observe.TraceDrain)
	serial.AgentSend.Set(observe.TraceSend)
	core.ExitHook.Set(exitProgram)
	core.WakeHook.Set(observe.NoteWake)
	core.ProbeHook.Set(observe.ReportWhereCPUsAre)
	core.XcallWork[core.XcallSamplerStart].Set(func(_ *machine.Frame, hz uint64) { observe.StartLocalSampler(hz) })
	core.XcallWork[core.XcallSamplerStop].Set(func(*machine.Frame, uint64) { observe.StopLocalSampler() })
	core.XcallWork[core.XcallCapture].Set(func(f *machine.Frame, _ uint64) { observe.CaptureHere(f) })
	core.XcallWork[core.XcallFlushLost].Set(func(*machine.Frame, uint64) { observe.FlushLocalLost() })
	core.XcallWork[core.XcallRingMode].Set(func(_ *machine.Frame, arg uint64) { observe.SetLocalRingMode(arg) })
}

// wireWaits hands each wait kind's rules to the wait table (waits.go): the code that blocks in
// a kind says how its call completes and how a signal ends it.
func wireWaits() {
	w := &core.WaitKinds
	w[core.WaitEpoll].Complete.Set(files.CompleteEpollWait)
	w[core.WaitEpoll].EINTR = true
	w[core.WaitEventfd].Complete.Set(files.CompleteEventfdWait)
	w[core.WaitDevice].Complete.Set(serial.CompleteDeviceWait)
	w[core.WaitDevice].Interruptible.Set(serial.PortWaitInterruptible)
	w[core.WaitPipe].Complete.Set(files.CompletePipeWait)
	w[core.WaitPipe].Interrupted.Set(files.PipeInterrupted)
	w[core.WaitShare].Complete.Set(syscalls.CompleteShareWait)
	w[core.WaitShare].Uninterruptible = true
	w[core.WaitNet].Complete.Set(files.CompleteNetWait)
	w[core.WaitNet].Interruptible.Set(files.SockWaitInterruptible)
	w[core.WaitNet].Interrupted.Set(files.SockInterrupted)
	w[core.WaitConsole].Complete.Set(console.CompleteWait)
	w[core.WaitSplice].Complete.Set(files.CompleteSpliceWait)
	w[core.WaitFIFO].Complete.Set(files.CompleteFIFOWait)
	w[core.WaitFIFO].Interrupted.Set(files.FIFOInterrupted)
	w[core.WaitLock].Complete.Set(files.CompleteLockWait)
	w[core.WaitRerun].Complete.Set(files.CompleteRerun)
	w[core.WaitPoll].Complete.Set(syscalls.CompletePollWait)
	w[core.WaitPoll].Interrupted.Set(syscalls.PollInterrupted)
}
