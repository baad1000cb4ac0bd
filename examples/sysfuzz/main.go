// Command sysfuzz makes random system calls, from a table that covers every call the unitrace
// kernel serves (kernel/systab), with good and hostile arguments: NULL, unmapped, kernel-half
// and non-canonical pointers, buffers that run into a guard page, huge lengths, unterminated and
// over-long paths, random flags and descriptors. It uses only what it made itself: descriptors
// it opened, memory it mapped, paths inside its scratch directory, signals to itself that are
// handled or ignored. It prints per call the count, the successes and each errno with its count
// ("stat" lines), then checks that its memory and the file system still work and prints
// "sysfuzz: ok" (exit status 0) or what failed (status 1).
//
// With -det it runs one thread whose call i depends only on the seed and i, from the same state
// (the scratch directory's tree and a fixed set of descriptors, made again before every call),
// and prints each call's result ("call" lines): the host's Linux and the guest get the same
// argument list, and cmd/sysfuzzcmp compares them.
//
// On the host it refuses to run as root: scripts/sysfuzz.sh runs it as nobody.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/unitrace/unitrace/examples/sysfuzz/fuzz"
	_ "github.com/unitrace/unitrace/kernel"
)

func main() {
	seed := flag.Uint64("seed", 1, "random seed")
	threads := flag.Int("threads", 4, "fuzzing threads (goroutines locked to OS threads)")
	dur := flag.Duration("time", 10*time.Second, "how long to fuzz (0: until -calls)")
	calls := flag.Uint64("calls", 0, "how many calls to make in all (0: until -time)")
	dir := flag.String("dir", "", "make the scratch directory in this directory (required)")
	det := flag.Bool("det", false, "deterministic: one thread, call i from the seed and i alone, the same state before each call, a line per call")
	only := flag.String("only", "", "make only these calls (comma-separated names)")
	verbose := flag.Bool("v", false, "with -det, print each call's arguments before it (an \"args\" line)")
	flag.Parse()
	if *dir == "" {
		fmt.Println("sysfuzz: -dir is required")
		os.Exit(2)
	}
	e, err := newEnv(*dir)
	if err != nil {
		fmt.Printf("sysfuzz: %v\n", err)
		os.Exit(2)
	}
	if !e.guest && (os.Getuid() == 0 || os.Geteuid() == 0) {
		// A fuzzer that ran as root once removed /dev/null and changed the mode of /.
		e.remove()
		fmt.Println("sysfuzz: refusing to run as root on the host (run it as nobody: scripts/sysfuzz.sh)")
		os.Exit(2)
	}
	if *det {
		*threads = 1
	}
	specs, err := selectSpecs(*only)
	if err != nil {
		fmt.Printf("sysfuzz: %v\n", err)
		os.Exit(2)
	}

	// The signals calls may send: delivered to a channel, drained. Before any fuzzing, the
	// runtime makes its own descriptors (its poller and timers'), so none is made later under
	// a number the fuzzer has closed.
	sigs := make(chan os.Signal, 64)
	signal.Notify(sigs, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGALRM, syscall.SIGVTALRM, syscall.SIGPIPE, syscall.SIGIO, syscall.SIGWINCH)
	var nsig atomic.Uint64
	go func() {
		for range sigs {
			nsig.Add(1)
		}
	}()
	time.Sleep(time.Millisecond)
	if r, w, err := os.Pipe(); err == nil {
		r.SetReadDeadline(time.Now())
		r.Close()
		w.Close()
	}

	e.tree()
	e.fixture()
	fmt.Printf("sysfuzz: seed %d, %d threads, %s, %d calls in the table, scratch %s, guest %v\n", *seed, *threads, limit(*dur, *calls), len(specs), e.scratch, e.guest)

	start := time.Now()
	deadline := start.Add(*dur)
	var next atomic.Uint64
	var wg sync.WaitGroup
	ths := make([]*thread, *threads)
	for i := range ths {
		t := &thread{id: i, e: e}
		region, err := mmapRaw(0, regionSize+pageSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
		if err != nil {
			fmt.Printf("sysfuzz: %v\n", err)
			os.Exit(1)
		}
		mprotectRaw(region+regionSize, pageSize, unix.PROT_NONE)
		t.region = region
		ths[i] = t
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			t.tid = unix.Gettid()
			r := fuzz.New(*seed, uint64(1000000000+t.id))
			for n := uint64(0); ; n++ {
				i := next.Add(1) - 1
				if *calls > 0 && i >= *calls {
					return
				}
				if *dur > 0 && time.Now().After(deadline) {
					return
				}
				if *det {
					e.reset()
					r = fuzz.New(*seed, i)
				} else if n%64 == 0 {
					e.trim(r)
				}
				if *det && *verbose {
					t.show = func(name string, a [6]uintptr) { fmt.Printf("args %d %s %#x\n", i, name, a) }
				}
				name, res := t.one(specs, r)
				if *det {
					fmt.Println(fuzz.CallLine(i, name, res))
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	signal.Stop(sigs)

	var rep fuzz.Report
	for _, t := range ths {
		rep.Merge(&t.rep)
	}
	for _, l := range rep.Lines() {
		fmt.Println(l)
	}
	fmt.Printf("sysfuzz: %d calls in %v (%.0f/s), %d signals\n", rep.Total(), elapsed.Round(time.Millisecond), float64(rep.Total())/elapsed.Seconds(), nsig.Load())
	if err := e.check(); err != nil {
		fmt.Printf("sysfuzz: FAIL: %v\n", err)
		os.Exit(1)
	}
	fmt.Println("sysfuzz: ok")
}

func limit(d time.Duration, calls uint64) string {
	switch {
	case calls > 0 && d > 0:
		return fmt.Sprintf("%d calls or %v", calls, d)
	case calls > 0:
		return fmt.Sprintf("%d calls", calls)
	}
	return d.String()
}

// selectSpecs returns the table's calls this architecture has (those named in only, if any).
func selectSpecs(only string) ([]resolved, error) {
	nrs := numbers()
	want := map[string]bool{}
	for _, n := range strings.Split(only, ",") {
		if n != "" {
			want[n] = true
		}
	}
	var out []resolved
	found := map[string]bool{}
	for _, s := range table {
		nr, ok := nrs[s.name]
		if !ok || (len(want) > 0 && !want[s.name]) {
			continue
		}
		found[s.name] = true
		out = append(out, resolved{s, nr})
	}
	for n := range want {
		if !found[n] {
			return nil, fmt.Errorf("-only: no call %q in the table on %s", n, runtime.GOARCH)
		}
	}
	return out, nil
}

type resolved struct {
	spec
	nr uintptr
}

// one makes one random call and counts its result.
func (t *thread) one(specs []resolved, r *fuzz.Rand) (name, result string) {
	s := specs[r.Intn(len(specs))]
	c := t.newCall(r)
	s.gen(c)
	if c.skip {
		t.rep.Add(s.name, "skipped")
		return s.name, "skipped"
	}
	if t.show != nil {
		t.show(s.name, c.a)
	}
	if c.mem {
		t.e.memMu.Lock()
	}
	r1, _, errno := syscall.Syscall6(s.nr, c.a[0], c.a[1], c.a[2], c.a[3], c.a[4], c.a[5])
	if errno == 0 && c.after != nil {
		c.after(r1)
	}
	if c.mem {
		t.e.memMu.Unlock()
	}
	result = fuzz.OK
	if errno != 0 {
		result = unix.ErrnoName(errno)
		if result == "" {
			result = fmt.Sprintf("errno%d", int(errno))
		}
	}
	t.rep.Add(s.name, result)
	return s.name, result
}

// check verifies that the fuzzer's memory kept its contents and that the file system still
// creates, writes, reads back, renames and removes files in the scratch directory.
func (e *env) check() error {
	if i := checkPattern(bytesAt(e.pattern, patternSize)); i >= 0 {
		return fmt.Errorf("the mapped pattern changed at byte %d", i)
	}
	if i := checkPattern(e.heapPat); i >= 0 {
		return fmt.Errorf("the heap pattern changed at byte %d", i)
	}
	e.reset()
	dir := filepath.Join(e.scratch, "check")
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	data := make([]byte, 100000)
	fillPattern(data)
	p := filepath.Join(dir, "file")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return err
	}
	q := filepath.Join(dir, "renamed")
	if err := os.Rename(p, q); err != nil {
		return err
	}
	back, err := os.ReadFile(q)
	if err != nil {
		return err
	}
	if i := checkPattern(back); i >= 0 || len(back) != len(data) {
		return fmt.Errorf("read back %d bytes of %d, differing at %d", len(back), len(data), i)
	}
	if err := os.Remove(q); err != nil {
		return err
	}
	if _, err := os.Stat(q); !os.IsNotExist(err) {
		return fmt.Errorf("removed file: stat says %v", err)
	}
	e.mu.Lock()
	fds := e.fds
	e.fds = nil
	e.mu.Unlock()
	for _, o := range fds {
		unix.Close(o.fd)
	}
	return e.remove()
}
