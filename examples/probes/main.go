// Command probes is the dynamic probes' workload: functions whose calls, arguments, results and
// durations it knows, called from several goroutines, for the VM tests to check the probes'
// records against. At the end it prints what it did:
//
//	target calls=N sum=S       main.target(i, s) was called N times; the results add up to S
//	spin calls=N each=D         main.spin(D) busy-waited D each call
//	classify calls=N            main.classify took each of its return paths
//	fact calls=N                main.fact's calls, recursive ones included
//	panics=N                    main.mayPanic's calls that panicked
//	sysinfo calls=N             sysinfo(2) system calls (the kernel's syscalls.Sysinfo)
//	twice calls=N sum=S         main.twice's calls, all inlined into main.main
//	greet calls=N bytes=B       main.greet(name)'s calls: name is userK for call K, the result
//	                            "hello, " and the name
//	digest=X                    a digest of every result, to compare runs
//
// target's arguments and results are known: call k of goroutine w passes i = w*1000+k and
// s = "abc" (length 3) and gets i*3+len(s) back. Between calls each goroutine grows its stack
// (a deep recursion over large frames), so the runtime moves it while target is being called.
//
// With -loop the goroutines call target until SIGINT instead, checking every result, and print
// "loop calls=N bad=B" and the digest of their first 1000 calls each: the digest of a run with
// -calls 1000, whatever probes came and went meanwhile.
//
// With -bench D one goroutine calls target for D and prints "bench calls=N ns_per_call=T": a
// probe's cost per hit is the difference a probe makes to T.
//
// Usage: probes [-calls N] [-spin D] [-spins N] [-sysinfo N] [-loop [-rate N]] [-bench D]
package main

import (
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	_ "github.com/unitrace/unitrace/kernel"
)

const workers = 4

var (
	calls       = flag.Int("calls", 250, "calls of target per goroutine")
	spinFor     = flag.Duration("spin", 2*time.Millisecond, "how long each spin call busy-waits")
	spinCalls   = flag.Int("spins", 20, "calls of spin")
	loop        = flag.Bool("loop", false, "call target from every goroutine until SIGINT")
	sysinfos    = flag.Int("sysinfo", 50, "sysinfo(2) calls")
	inlineCalls = flag.Int("twice", 30, "calls of twice, inlined")
	greets      = flag.Int("greet", 5, "calls of greet, with user0, user1, ...")
	loopRate    = flag.Int("rate", 0, "with -loop, at most this many calls a second per goroutine (0: as many as it can)")
	benchFor    = flag.Duration("bench", 0, "call target from one goroutine for this long, print the calls and the time per call, and exit")
)

// target is the probed function: a frame of its own (it calls mix), known arguments and result.
//
//go:noinline
func target(i int, s string) int {
	return mix(i) + len(s)
}

//go:noinline
func mix(i int) int { return i * 3 }

// twice is small enough for the compiler to inline into its callers: a probe on it goes at
// each inlined body's start. It calls mix, so that its body keeps code of its own.
func twice(x, y int) int { return mix(y) }

// greet takes and returns strings built at run time: a probe copies their bytes at the hit
// (-probe-strings), as the image does not hold them.
//
//go:noinline
func greet(name string) string { return "hello, " + name }

// grow recurses over large frames: each goroutine's stack starts small, so this moves it.
//
//go:noinline
func grow(depth int) int {
	var pad [512]byte
	pad[depth%len(pad)] = byte(depth)
	if depth == 0 {
		return int(pad[0])
	}
	return grow(depth-1) + int(pad[depth%len(pad)])
}

// spin busy-waits d: its return probe's latency is d.
//
//go:noinline
func spin(d time.Duration) int {
	start := time.Now()
	n := 0
	for time.Since(start) < d {
		n++
	}
	return n
}

// classify has three return paths.
//
//go:noinline
func classify(n int) int {
	if n < 0 {
		return -1
	}
	if n == 0 {
		return 0
	}
	return grow(1) + 1
}

// fact recurses: every call returns, and each return pairs with its own entry.
//
//go:noinline
func fact(n int) int {
	if n <= 1 {
		return 1
	}
	return n * fact(n-1)
}

var panics atomic.Int64

// mayPanic panics when n is a multiple of 5: its entry is seen and its return is not.
//
//go:noinline
func mayPanic(n int) int {
	if n%5 == 0 {
		panic(fmt.Sprint("multiple of five: ", n))
	}
	return mix(n)
}

func tryPanic(n int) (r int) {
	defer func() {
		if recover() != nil {
			panics.Add(1)
			r = -1
		}
	}()
	return mayPanic(n)
}

func main() {
	flag.Parse()
	if *loop {
		loopUntilInterrupt()
		return
	}
	if *benchFor > 0 {
		bench(*benchFor)
		return
	}
	var wg sync.WaitGroup
	var sum atomic.Int64
	var ncalls atomic.Int64
	var locals [workers]int
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := 0
			for k := 0; k < *calls; k++ {
				r := target(w*1000+k, "abc")
				ncalls.Add(1)
				sum.Add(int64(r))
				local = local*31 + r
				grow(k % 64)
			}
			locals[w] = local
		}()
	}
	wg.Wait()
	digest := fnv.New64a()
	for w, l := range locals {
		fmt.Fprintf(digest, "%d:%d;", w, l)
	}
	for k := 0; k < *spinCalls; k++ {
		spin(*spinFor)
	}
	nclass := 0
	for _, n := range []int{-5, 0, 7, -1, 0, 3} {
		classify(n)
		nclass++
	}
	twices := 1
	for n := 0; n < *inlineCalls; n++ {
		twices += twice(n, twices)
	}
	greeted := 0
	for k := 0; k < *greets; k++ {
		greeted += len(greet(fmt.Sprint("user", k)))
	}
	nfact := 0
	for n := 1; n <= 6; n++ {
		fact(n)
		nfact += n // fact(n) makes n calls
	}
	for n := 1; n <= 20; n++ {
		tryPanic(n)
	}
	var si syscall.Sysinfo_t
	for k := 0; k < *sysinfos; k++ {
		if err := syscall.Sysinfo(&si); err != nil {
			fmt.Println("sysinfo:", err)
			os.Exit(1)
		}
	}
	fmt.Printf("target calls=%d sum=%d\n", ncalls.Load(), sum.Load())
	fmt.Printf("spin calls=%d each=%v\n", *spinCalls, *spinFor)
	fmt.Printf("classify calls=%d\n", nclass)
	fmt.Printf("fact calls=%d\n", nfact)
	fmt.Printf("panics=%d\n", panics.Load())
	fmt.Printf("sysinfo calls=%d\n", *sysinfos)
	fmt.Printf("twice calls=%d sum=%d\n", *inlineCalls, twices)
	fmt.Printf("greet calls=%d bytes=%d\n", *greets, greeted)
	fmt.Printf("digest=%x\n", digest.Sum64())
	os.Exit(0)
}

// loopDigestCalls is how many of each goroutine's calls the -loop digest covers; loopBatch how
// many calls -rate lets go between sleeps.
const (
	loopDigestCalls = 1000
	loopBatch       = 10
)

// loopUntilInterrupt is -loop: the workers call target until SIGINT, each result checked.
func loopUntilInterrupt() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	var done atomic.Bool
	var wg sync.WaitGroup
	var ncalls, bad atomic.Int64
	var locals [workers]int
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := 0
			for k := 0; !done.Load() || k < loopDigestCalls; k++ {
				i := w*1000 + k
				r := target(i, "abc")
				if r != i*3+3 {
					bad.Add(1)
				}
				if k < loopDigestCalls {
					local = local*31 + r
				}
				ncalls.Add(1)
				grow(k % 64)
				if *loopRate > 0 && k%loopBatch == loopBatch-1 {
					time.Sleep(time.Duration(loopBatch) * time.Second / time.Duration(*loopRate))
				}
			}
			locals[w] = local
		}()
	}
	fmt.Println("looping")
	<-stop
	done.Store(true)
	wg.Wait()
	digest := fnv.New64a()
	for w, l := range locals {
		fmt.Fprintf(digest, "%d:%d;", w, l)
	}
	fmt.Printf("loop calls=%d bad=%d\n", ncalls.Load(), bad.Load())
	fmt.Printf("digest=%x\n", digest.Sum64())
}

// bench calls target for d from this goroutine and prints how many calls it made and the time
// each took: the clock is read every benchBatch calls.
func bench(d time.Duration) {
	const benchBatch = 1000
	start := time.Now()
	n, sink := 0, 0
	for time.Since(start) < d {
		for k := 0; k < benchBatch; k++ {
			sink += target(k, "abc")
		}
		n += benchBatch
	}
	el := time.Since(start)
	fmt.Printf("bench calls=%d ns_per_call=%.1f sink=%d\n", n, float64(el.Nanoseconds())/float64(n), sink)
}
