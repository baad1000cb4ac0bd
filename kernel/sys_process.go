package kernel

// One process: the program is the only one there is, and it cannot start another. fork, vfork
// and clone without CLONE_THREAD (sysCloneImpl), execve and execveat fail with ENOSYS, and the
// first of them says so on the console. ENOSYS rather than EAGAIN, Linux's errno for a fork
// past a resource limit: os/exec then reports "fork/exec PATH: function not implemented", which
// says that it cannot work here, where "resource temporarily unavailable" would invite a retry
// (shells retry a fork that fails with EAGAIN). wait4 and waitid find no child (ECHILD), as
// Linux answers a process that has none.

var warnedProcess bool

// noNewProcess is the answer to a call that would start or replace a process.
func noNewProcess() uint64 {
	reportOnce(&warnedProcess, "unitrace runs one process and cannot start another")
	return neg(ENOSYS)
}

func sysNoProcess(f *Frame, a syscallArgs) (uint64, bool) { return noNewProcess(), true }

func sysNoChild(f *Frame, a syscallArgs) (uint64, bool) { return neg(ECHILD), true }
