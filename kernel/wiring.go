package kernel

import "github.com/unitrace/unitrace/kernel/machine"

// The composition root's wiring: what the layers below take from the ones above, handed down
// once, first thing at boot (wireKernel, from bootMain).

// wireKernel installs every hook.
func wireKernel() {
	wireWaits()
	exitHook.set(exitProgram)
	wakeHook.set(noteWake)
	probeHook.set(reportWhereCPUsAre)
	sweepHook.set(sweepNext)
	xcallWork[xcallSamplerStart].set(func(_ *machine.Frame, hz uint64) { startLocalSampler(hz) })
	xcallWork[xcallSamplerStop].set(func(*machine.Frame, uint64) { stopLocalSampler() })
	xcallWork[xcallCapture].set(func(f *machine.Frame, _ uint64) { captureHere(f) })
	xcallWork[xcallFlushLost].set(func(*machine.Frame, uint64) { flushLocalLost() })
	xcallWork[xcallRingMode].set(func(_ *machine.Frame, arg uint64) { setLocalRingMode(arg) })
}

// wireWaits hands each wait kind's rules to the wait table (waits.go): the code that blocks in
// a kind says how its call completes and how a signal ends it.
func wireWaits() {
	w := &waitKinds
	w[waitEpoll].complete.set(completeEpollWait)
	w[waitEpoll].eintr = true
	w[waitEventfd].complete.set(completeEventfdWait)
	w[waitDevice].complete.set(completeDeviceWait)
	w[waitDevice].interruptible.set(portWaitInterruptible)
	w[waitPipe].complete.set(completePipeWait)
	w[waitPipe].interrupted.set(pipeInterrupted)
	w[waitShare].complete.set(completeShareWait)
	w[waitShare].uninterruptible = true
	w[waitNet].complete.set(completeNetWait)
	w[waitNet].interruptible.set(sockWaitInterruptible)
	w[waitNet].interrupted.set(sockInterrupted)
	w[waitConsole].complete.set(completeConsoleWait)
	w[waitSplice].complete.set(completeSpliceWait)
	w[waitFIFO].complete.set(completeFIFOWait)
	w[waitFIFO].interrupted.set(fifoInterrupted)
	w[waitLock].complete.set(completeLockWait)
	w[waitRerun].complete.set(completeRerun)
	w[waitPoll].complete.set(completePollWait)
	w[waitPoll].interrupted.set(pollInterrupted)
}
