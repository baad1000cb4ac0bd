// Command bench runs fixed-work workloads and prints what each costs, one line each:
//
//	bench NAME VALUE UNIT
//
// It is built twice from this source, as a unitrace image and as an ordinary static Linux
// program (the /init of a one-file initramfs), and cmd/benchcompare boots both under the same
// QEMU and compares the lines (make bench). Every workload times itself with its own clock
// (time.Now, which both kernels serve from a vDSO); every value is a time per unit of work, so
// lower is better on every row and a ratio below 1 means the first kernel is faster.
//
// The first line is "boot_ns N": CLOCK_MONOTONIC at main.main (under unitrace the time since the
// kernel's entry, under Linux since the kernel started). With -poweroff (the Linux guest's /init
// gets it from the kernel command line) it powers the machine off at the end instead of
// exiting: init must not exit.
//
// With -serve it runs what its standard input (the serial console) asks, one batch at a time,
// so that cmd/benchcompare can keep both guests booted and run each batch in one guest right
// after the same batch in the other (serve.go).
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"
	"unsafe"

	_ "github.com/unitrace/unitrace/kernel"
)

// workload is one row: its name, its unit, and the work, which returns the measured value.
type workload struct {
	name, unit string
	run        func() float64
}

var workloads = []workload{
	{"clock_read", "ns/op", clockRead},
	{"syscall_getppid", "ns/op", rawSyscall},
	{"futex_pingpong", "ns/round-trip", futexPingPong},
	{"chan_pingpong", "ns/round-trip", chanPingPong},
	{"sleep_50us", "us/op", sleep50},
	{"timer_1ms_late", "us/op", timerLateness},
	{"copy_64KiB", "ns/MiB", copySmall},
	{"copy_1MiB", "ns/MiB", copyLarge},
	{"copy_1MiB_fresh", "ns/MiB", copyFresh},
	{"sha256_64KiB", "ns/MiB", sha256Bench},
	{"aes_gcm_64KiB", "ns/MiB", aesGCMBench},
	{"alloc_gc", "ns/op", allocGC},
	{"compute", "ns/kiter", compute},
}

func main() {
	var ts syscall.Timespec
	syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, 1, uintptr(unsafe.Pointer(&ts)), 0)
	fmt.Printf("boot_ns %d\n", ts.Nano())
	only := flag.String("only", "", "run only the workloads with these names (comma-separated), in the usual order")
	poweroff := flag.Bool("poweroff", false, "power the machine off at the end (as Linux's init)")
	flag.IntVar(&scale, "scale", 1, "run each per-operation workload this many times as long (for a profile with more samples)")
	batches := flag.Int("batches", 5, "run each workload this many times and report the fastest")
	serveMode := flag.Bool("serve", false, "run the workloads standard input names, one batch each (serve.go)")
	flag.Parse()
	if *serveMode {
		if err := serve(os.Stdin, os.Stdout); err != nil {
			fmt.Printf("bench-error %v\n", err)
		}
		end(*poweroff)
		return
	}
	for _, w := range workloads {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), w.name) {
			continue
		}
		fmt.Printf("bench %s %.3f %s\n", w.name, fastest(w.run, *batches), w.unit)
	}
	end(*poweroff)
}

// end leaves the program: with poweroff (Linux's init must not exit) by powering the machine
// off.
func end(poweroff bool) {
	if poweroff {
		syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF)
		os.Exit(1) // not allowed to: the kernel panics and, with panic=-1 and -no-reboot, QEMU exits
	}
}

// fastest is the least of n runs of run (at least one). Under an emulator on a shared host the
// host only ever adds time (a vCPU descheduled, the emulator's main loop holding its lock while
// the guest waits for a device register), so the fastest batch is the one least disturbed; the
// first also pays for translating the workload's code and faulting its memory in.
func fastest(run func() float64, n int) float64 {
	best := run()
	for i := 1; i < n; i++ {
		best = min(best, run())
	}
	return best
}

// scale multiplies the operation counts of perOp's workloads (-scale).
var scale = 1

// perOp runs f n times (times scale) and returns the mean time of one run in ns.
func perOp(n int, f func()) float64 {
	n *= max(scale, 1)
	start := time.Now()
	for i := 0; i < n; i++ {
		f()
	}
	return float64(time.Since(start).Nanoseconds()) / float64(n)
}
