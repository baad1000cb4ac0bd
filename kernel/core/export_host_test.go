//go:build unitrace_host && amd64

package core

// What the external host tests (package core_test, which can use coretest) drive directly.

// InterruptWait is interruptWait: a signal's attempt to end the wait of the thread in slot.
func InterruptWait(slot int32) { interruptWait(slot) }

// Restarting reports whether the thread in slot's system call is to run again.
func Restarting(slot int32) bool { return Threads[slot].restarting }

// SetCPUTimersArmed stands for a CPU-time timer armed, or none.
func SetCPUTimersArmed(armed bool) { cpuTimersArmed.Store(armed) }
