// Command fpstate checks that a thread's registers survive the kernel: system calls, thread
// switches and signal delivery. Threads locked to their own OS thread each fill the vector
// registers (and on amd64 the x87 control word and the general registers a system call keeps)
// with a pattern of their own, make a system call that blocks (so that the CPU runs the other
// threads meanwhile) or does not, and check the registers afterwards (fpstate_amd64.s,
// fpstate_arm64.s). Meanwhile the runtime's preemption signals and a SIGPROF profile interrupt
// them. A system call keeps the vector registers as Go's ABI needs (amd64: X15 zero, X0-X14
// scratch; arm64: none live across a call), so the vector registers are checked after a spin,
// where interrupts land, and after the call only what it keeps (amd64: X15; arm64: FPCR). With
// AVX on (amd64), each round trip also spins with all of YMM0-YMM15 filled (wide_amd64.go).
//
// It prints "fpstate: ok N round trips" or "fpstate: FAIL ..." and exits with status 0 or 1.
package main

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"syscall"
	"time"
	"unsafe"

	_ "github.com/unitrace/unitrace/kernel"
)

const threads, rounds = 4, 500

// roundTrip fills the vector registers from seed, makes system call nr with a0 and a1, and
// reports how many registers no longer hold their pattern (0: all survived).
func roundTrip(seed uint64, nr, a0, a1 uintptr) int

func main() {
	// As many Ps as threads, so that on any number of CPUs the kernel, not the Go scheduler,
	// interleaves them: a thread's yield then hands the CPU to another in the middle of its own
	// round trip.
	runtime.GOMAXPROCS(threads)
	var prof bytes.Buffer
	pprof.StartCPUProfile(&prof) // SIGPROF on every thread, at any point
	defer pprof.StopCPUProfile()
	sleep := syscall.NsecToTimespec(int64(200 * time.Microsecond))
	calls := []struct {
		nr, a0, a1 uintptr
	}{
		{syscall.SYS_GETPID, 0, 0},
		{syscall.SYS_SCHED_YIELD, 0, 0}, // the others are runnable: the CPU goes to one of them
		{syscall.SYS_SCHED_YIELD, 0, 0},
		{syscall.SYS_SCHED_YIELD, 0, 0},
		{syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&sleep)), 0},
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	bad := 0
	for w := 0; w < threads; w++ {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for i := 0; i < rounds; i++ {
				c := calls[i%len(calls)]
				seed := uint64(w+1)<<32 | uint64(i)
				if n := roundTrip(seed, c.nr, c.a0, c.a1) + spinWide(seed); n != 0 {
					mu.Lock()
					bad += n
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if bad != 0 {
		fmt.Printf("fpstate: FAIL %d registers lost their value\n", bad)
		os.Exit(1)
	}
	if w := wideName(); w != "" {
		fmt.Printf("fpstate: ok %d round trips, each with a spin holding %s\n", threads*rounds, w)
		return
	}
	fmt.Printf("fpstate: ok %d round trips\n", threads*rounds)
}
