package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"syscall"
	"time"
)

// The spin mode sets up the scene the stacks command and the watchdog are tested on: one CPU
// taken for good by a thread spinning in a known function, and a thread that can never run.
//
// The spinner is a goroutine locked to its OS thread, pinned to the last CPU and made
// SCHED_FIFO, so the kernel never time-slices it away. It spins in assembly (spinForever),
// where Go's preemption signal cannot stop it (assembly has no async safe points), so the
// runtime cannot take the thread off the CPU either. Before spinning it clones a raw thread:
// the child inherits the spinner's affinity and policy (as on Linux), so it waits for a CPU
// that is never given up, and is reported as never-run.

// threadFlags are the clone flags of a thread sharing everything with its creator, the flags the
// Go runtime uses for its own threads.
const threadFlags = syscall.CLONE_VM | syscall.CLONE_FS | syscall.CLONE_FILES | syscall.CLONE_SIGHAND |
	syscall.CLONE_THREAD | syscall.CLONE_SYSVSEM

// schedFIFO is SCHED_FIFO: a thread with it keeps its CPU until it blocks or yields.
const schedFIFO = 1

// childStack is the raw child's stack (childStackTop). The child only makes the exit system
// call, so a few words would do.
var childStack [4096]byte

// spun is what the spinner tells the main goroutine once it spins: the never-run child's tid
// and its own CPU. The spinner itself makes no system call after the clone: one that blocked
// (a console write waiting for the UART) would give the child the CPU.
var spun struct {
	tid, cpu atomic.Int64
}

// spin runs the spinner, prints its line once it spins and sleeps until d has passed since the
// start, then returns (the program exits 0 and the kernel stops every CPU, the spinning one
// included).
func spin(d time.Duration) {
	// A collection would have to stop the spinning goroutine, which never reaches a safe point:
	// the whole program would hang at the first GC.
	debug.SetGCPercent(-1)
	start := time.Now()
	go spinner(lastCPU())
	for spun.tid.Load() == 0 {
		if time.Since(start) > d {
			fmt.Fprintln(os.Stderr, "spin: the spinner did not start")
			os.Exit(1)
		}
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Printf("spin: child tid %d never runs; spinning on cpu %d\n", spun.tid.Load(), spun.cpu.Load())
	time.Sleep(d - time.Since(start))
}

// lastCPU returns the highest-numbered CPU this thread may run on: the guest's last CPU, or on
// a host the last one its affinity mask allows.
func lastCPU() int {
	var mask cpuMask
	n, e := schedGetaffinity(&mask)
	if e != 0 {
		die("sched_getaffinity", e)
	}
	last := -1
	for i := 0; i < n*8 && i < len(mask)*64; i++ {
		if mask[i/64]&(1<<(i%64)) != 0 {
			last = i
		}
	}
	if last < 0 {
		die("sched_getaffinity", syscall.EINVAL)
	}
	return last
}

// spinner pins its thread to cpu, makes it SCHED_FIFO, clones the never-run child, tells spin
// and spins. A failed system call ends the program with status 1.
//
//go:noinline
func spinner(cpu int) {
	runtime.LockOSThread()
	// The mask names cpu alone and is only as long as it needs to be: 8 bytes for CPUs 0-63.
	var mask cpuMask
	mask[cpu/64] = 1 << (cpu % 64)
	if e := schedSetaffinity(&mask, uintptr(cpu/64+1)*8); e != 0 {
		die("sched_setaffinity", e)
	}
	if e := schedSetFIFO(1); e != 0 {
		die("sched_setscheduler", e)
	}
	tid := rawClone(threadFlags, childStackTop())
	if tid < 0 {
		die("clone", syscall.Errno(-tid))
	}
	spun.cpu.Store(int64(cpu))
	spun.tid.Store(int64(tid))
	spinForever()
}

func die(call string, e syscall.Errno) {
	fmt.Fprintf(os.Stderr, "spin: %s: %v\n", call, e)
	os.Exit(1)
}

// rawClone makes the clone system call with flags, the child starting on stack, and returns
// the child's thread id, or a negative errno. The child runs no Go code: on its first
// instruction it calls exit(0), which ends that thread alone.
func rawClone(flags, stack uintptr) int

// spinForever loops in registers forever. It is assembly, so not async-preemptible: the thread
// running it stays on its CPU. It keeps a frame (the frame-pointer prologue), so a walk from it
// reaches spinner.
func spinForever()
