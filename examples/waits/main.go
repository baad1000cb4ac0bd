// Command waits is the off-CPU profiler's ground truth: goroutines that each wait in one known
// way, for a share of their wall time that the program measures itself around every blocking
// call, so that a test can compare the off-CPU profile's weights with the truth:
//
//	sleep   time.Sleep                        (wait reason "sleep")
//	chan    a channel receive                 ("chan receive")
//	mutex   sync.Mutex.Lock of a held mutex   ("sync.Mutex.Lock")
//	netpoll a read of an os.Pipe              ("IO wait": the runtime's netpoller)
//	syscall a read(2) of a blocking pipe      (state syscall, the kernel's read)
//
// Each one loops: wait, then work on the CPU for a while, with random lengths (so that no
// period of the loop lines up with the profiler's). The partners that end the waits (a feeder
// for chan, a holder for mutex, writers for the pipes) run on goroutines of their own.
//
// Usage: waits [-blockprofile FILE] [DURATION] (default 4s; -blockprofile writes Go's own block
// profile of the run, every event recorded, to compare with), waits park DURATION (park.go: goroutines parked for
// good, then the runtime's own dump), or waits churn DURATION (churn.go: goroutines created,
// grown and collected under the sweep); waits idle N DURATION and waits pingpong N measure the
// sweep's and the wake-up records' costs (cost.go). At the end it prints one line per waiter,
//
//	waits: ROLE goid=N wall=NS blocked=NS
//
// (blocked: the time inside the blocking calls), and one per partner, "waits: partner ROLE
// goid=N", then exits with status 0.
package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	_ "github.com/unitrace/unitrace/kernel"
)

// Each round blocks for blockMin..blockMax and then works for workMin..workMax: the waits are
// about 95% of a waiter's time, and five waiters' work takes a fifth of one CPU, so that a
// woken waiter seldom waits for the CPU.
const (
	blockMin, blockMax = 4 * time.Millisecond, 16 * time.Millisecond
	workMin, workMax   = 200 * time.Microsecond, 600 * time.Microsecond
)

func main() {
	if ok, err := costMode(os.Args[1:]); ok {
		if err != nil {
			fmt.Fprintln(os.Stderr, "waits:", err)
			os.Exit(2)
		}
		return
	}
	if len(os.Args) == 3 && (os.Args[1] == "park" || os.Args[1] == "churn") {
		d, err := time.ParseDuration(os.Args[2])
		if err == nil && os.Args[1] == "park" {
			err = park(d)
		} else if err == nil {
			err = churn(d)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "waits:", err)
			os.Exit(1)
		}
		return
	}
	args := os.Args[1:]
	blockProfile := ""
	if len(args) >= 2 && args[0] == "-blockprofile" {
		blockProfile, args = args[1], args[2:]
		runtime.SetBlockProfileRate(1) // every blocking event, as the comparison wants
	}
	d := 4 * time.Second
	if len(args) > 0 {
		v, err := time.ParseDuration(args[0])
		if err != nil {
			fmt.Fprintln(os.Stderr, "usage: waits [-blockprofile FILE] [DURATION]")
			os.Exit(2)
		}
		d = v
	}
	if err := run(d); err != nil {
		fmt.Fprintln(os.Stderr, "waits:", err)
		os.Exit(1)
	}
	if blockProfile != "" {
		if err := writeBlockProfile(blockProfile); err != nil {
			fmt.Fprintln(os.Stderr, "waits:", err)
			os.Exit(1)
		}
	}
}

// writeBlockProfile writes Go's own block profile of the run to path.
func writeBlockProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("block").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// result is one waiter's truth.
type result struct {
	role          string
	goid          uint64
	wall, blocked time.Duration
}

func run(d time.Duration) error {
	var mu sync.Mutex
	held, turn := make(chan struct{}), make(chan struct{}) // the mutex's holder and waiter take turns
	ch := make(chan int)
	pr, pw, raw, err := pipes()
	if err != nil {
		return err
	}
	deadline := time.Now().Add(d)
	stop := make(chan struct{})
	partners := map[string]func(r *rand.Rand){
		"chan": func(r *rand.Rand) {
			for {
				time.Sleep(randDur(r, blockMin, blockMax))
				select {
				case ch <- 1:
				case <-stop:
					return
				}
			}
		},
		"mutex": func(r *rand.Rand) {
			// It takes the mutex, tells the waiter so, holds it, and waits for the waiter to
			// have had its turn: the waiter's Lock waits out the whole hold, and nothing
			// else of the waiter waits on the mutex.
			for {
				mu.Lock()
				select {
				case held <- struct{}{}:
				case <-stop:
					mu.Unlock()
					return
				}
				time.Sleep(randDur(r, blockMin, blockMax))
				mu.Unlock()
				<-turn
			}
		},
		"netpoll": func(r *rand.Rand) { writeEvery(r, stop, func(b []byte) error { _, err := pw.Write(b); return err }) },
		"syscall": func(r *rand.Rand) {
			writeEvery(r, stop, func(b []byte) error { _, err := syscall.Write(raw[1], b); return err })
		},
	}
	sleepRand := rand.New(rand.NewPCG(1, 2))
	// A waiter blocks in wait, measured; before and after are its turn-taking with its partner,
	// not measured (the mutex's only).
	waiters := []struct {
		role          string
		wait          func() error
		before, after func()
	}{
		{"sleep", func() error { time.Sleep(randDur(sleepRand, blockMin, blockMax)); return nil }, nil, nil},
		{"chan", func() error { <-ch; return nil }, nil, nil},
		{"mutex", func() error { mu.Lock(); mu.Unlock(); return nil }, func() { <-held }, func() { turn <- struct{}{} }},
		{"netpoll", func() error { return readOne(func(b []byte) (int, error) { return pr.Read(b) }) }, nil, nil},
		{"syscall", func() error { return readOne(func(b []byte) (int, error) { return syscall.Read(raw[0], b) }) }, nil, nil},
	}
	var wg sync.WaitGroup
	var pmu sync.Mutex
	var lines []string
	for i, name := range []string{"chan", "mutex", "netpoll", "syscall"} {
		f := partners[name]
		wg.Add(1)
		go func() {
			defer wg.Done()
			pmu.Lock()
			lines = append(lines, fmt.Sprintf("waits: partner %s goid=%d", name, goid()))
			pmu.Unlock()
			f(rand.New(rand.NewPCG(uint64(i), 7)))
		}()
	}
	results := make([]result, len(waiters))
	var ww sync.WaitGroup
	for i, w := range waiters {
		ww.Add(1)
		go func() {
			defer ww.Done()
			results[i] = wait(w.role, w.wait, w.before, w.after, deadline, rand.New(rand.NewPCG(uint64(i), 11)))
		}()
	}
	ww.Wait()
	close(stop)
	// Unblock the partners that may be waiting on their waiter: the feeder's send is in its
	// select, the writers' pipes have room, the holder unlocks on its own.
	wg.Wait()
	for _, l := range lines {
		fmt.Println(l)
	}
	for _, r := range results {
		if r.role == "" {
			continue
		}
		fmt.Printf("waits: %s goid=%d wall=%d blocked=%d\n", r.role, r.goid, r.wall.Nanoseconds(), r.blocked.Nanoseconds())
	}
	return nil
}

// pipes makes the two pipes the waiters read: an os.Pipe, whose reads wait in the netpoller,
// and a blocking pipe for read(2) itself.
func pipes() (pr, pw *os.File, raw [2]int, err error) {
	if pr, pw, err = os.Pipe(); err != nil {
		return nil, nil, raw, err
	}
	err = syscall.Pipe2(raw[:], syscall.O_CLOEXEC)
	return pr, pw, raw, err
}

// wait runs one waiter until deadline: block (measured), then work; before and after (if not
// nil) run around the block.
func wait(role string, block func() error, before, after func(), deadline time.Time, r *rand.Rand) result {
	res := result{role: role, goid: goid()}
	start := time.Now()
	for time.Now().Before(deadline) {
		if before != nil {
			before()
		}
		t := time.Now()
		if err := block(); err != nil {
			fmt.Fprintf(os.Stderr, "waits: %s: %v\n", role, err)
			os.Exit(1)
		}
		res.blocked += time.Since(t)
		if after != nil {
			after()
		}
		spin(randDur(r, workMin, workMax))
	}
	res.wall = time.Since(start)
	return res
}

// writeEvery writes a byte every blockMin..blockMax until stop is closed.
func writeEvery(r *rand.Rand, stop chan struct{}, write func([]byte) error) {
	for !stopped(stop) {
		time.Sleep(randDur(r, blockMin, blockMax))
		if err := write([]byte{1}); err != nil {
			fmt.Fprintln(os.Stderr, "waits: write:", err)
			os.Exit(1)
		}
	}
}

// readOne reads one byte.
func readOne(read func([]byte) (int, error)) error {
	var b [1]byte
	for {
		n, err := read(b[:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n == 1 {
			return err
		}
	}
}

func stopped(stop chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

func randDur(r *rand.Rand, lo, hi time.Duration) time.Duration {
	return lo + time.Duration(r.Int64N(int64(hi-lo)))
}

// spin works on the CPU for d.
//
//go:noinline
func spin(d time.Duration) {
	end := time.Now().Add(d)
	x := uint64(1)
	for time.Now().Before(end) {
		for i := 0; i < 1000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	sink = x
}

var sink uint64

// goid is the calling goroutine's id, from the first line of its own traceback.
func goid() uint64 {
	var b [64]byte
	s := strings.TrimPrefix(string(b[:runtime.Stack(b[:], false)]), "goroutine ")
	n, _ := strconv.ParseUint(s[:strings.IndexByte(s, ' ')], 10, 64)
	return n
}
