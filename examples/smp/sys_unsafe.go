package main

import (
	"syscall"
	"unsafe"
)

// The spin mode's system calls that the syscall package has no wrapper for. Each passes the
// address of its argument to the kernel for the length of the call only, converted in the call
// expression as package unsafe's rule for system call arguments asks.

// cpuMask is a CPU set of 1024 CPUs, as glibc's cpu_set_t.
type cpuMask [16]uint64

// schedGetaffinity fills m with the calling thread's CPU set and returns how many bytes of it
// the kernel wrote.
func schedGetaffinity(m *cpuMask) (int, syscall.Errno) {
	n, _, e := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, 0, unsafe.Sizeof(*m), uintptr(unsafe.Pointer(m)))
	return int(n), e
}

// schedSetaffinity narrows the calling thread to the CPUs in the first size bytes of m.
func schedSetaffinity(m *cpuMask, size uintptr) syscall.Errno {
	_, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, 0, size, uintptr(unsafe.Pointer(m)))
	return e
}

// schedSetFIFO makes the calling thread SCHED_FIFO at priority prio.
func schedSetFIFO(prio int32) syscall.Errno {
	param := struct{ priority int32 }{prio} // struct sched_param
	_, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETSCHEDULER, 0, schedFIFO, uintptr(unsafe.Pointer(&param)))
	return e
}

// childStackTop is the top of childStack, aligned to 16 bytes as both ABIs want. The array is
// a global that never moves, so the address stays valid for the child.
func childStackTop() uintptr {
	return (uintptr(unsafe.Pointer(&childStack)) + uintptr(len(childStack))) &^ 15
}
