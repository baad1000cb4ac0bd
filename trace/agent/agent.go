// Package agent is the guest's trace agent: ordinary goroutines (not kernel-mode code) that
// keep the trace flowing to the host. The drain loop asks the kernel to move records from the
// per-CPU rings to the data port (trace.SysDrain); the control loop serves the host's commands
// on the control port (descriptor 4). Both block when the host does not read; the rings then
// fill and drop new records, counted, so the code that emits tracepoints never blocks.
package agent

import (
	"sync"
	"time"

	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/trace/ring"
)

// CtlFD is the control port's descriptor, opened by the kernel at boot.
const CtlFD = 4

const (
	// The drain loop looks at the rings every checkPeriod, by reading their heads (no system
	// call), and drains them when a ring holds 1/fillShare of its size, when quietPeriod has
	// passed since the last drain, and at once again while a ring is half full (busy). A drain
	// costs the program's CPU far more than a look: the system call with the rings' producers
	// paused, the frame's copy and checksum, the port's notification and its completion
	// interrupt. So the sampler's steady trickle (about 150 KB/s at 1 kHz, 30 KB a quiet period
	// against a 1 MiB ring) goes out in one frame a quiet period rather than one every 10 ms,
	// and a burst is still seen within checkPeriod: only one that fills half a ring in less
	// (25 MB/s for the default ring) finds the drain late, and the ring counts what it drops.
	checkPeriod = 20 * time.Millisecond
	quietPeriod = 200 * time.Millisecond
	fillShare   = 16
	clockPeriod = time.Second // how often a CLOCK frame goes out
	passLimit   = 64          // frames per ring per pass, so one busy ring cannot starve the rest
)

var once sync.Once

// Start launches the agent once. The kernel calls it from an init function when it booted
// with the tracer on.
func Start() {
	once.Do(func() {
		a := &agent{tracer: true}
		go a.run()
	})
}

// StartControl launches the control loop alone, once: the kernel calls it from an init
// function when it booted without the tracer but was asked to serve the control port
// (unitrace.ctl=1), so the host can still signal the program. Commands that need the tracer
// are refused.
func StartControl() {
	once.Do(func() {
		a := &agent{}
		go a.serveControl()
	})
}

// agent is the state the two loops share. mu serialises their use of the data port, so a
// command's frames (a flush's DATA, a STATS, END) come out whole and in order.
type agent struct {
	tracer  bool // the tracer runs: the rings and the data port are the agent's
	mu      sync.Mutex
	stopped bool // END is out: nothing more goes to the data port
	// points is how many tracepoints the last DICT described. The program registers its own
	// in its package initialisation, which may run after the agent started: a HELLO and DICT
	// go out again when the count changes, so the host can name every record.
	points int
}

func (a *agent) run() {
	// The control loop starts first: HELLO waits until a host opens the data port, and commands
	// that do not use it (stacks, the sampler's) must not wait for that.
	go a.serveControl()
	a.mu.Lock()
	err := a.sendHello()
	a.mu.Unlock()
	if err != nil {
		return // no data port to speak of: nothing else will work either
	}
	lastClock, lastDrain := time.Now(), time.Time{}
	for {
		a.mu.Lock()
		if a.stopped {
			a.mu.Unlock()
			return
		}
		if trace.NumPoints() != a.points {
			a.sendHello()
		}
		busy := false
		if time.Since(lastDrain) >= quietPeriod || ringsFilled(fillShare) {
			busy = a.drainStream()
			lastDrain = time.Now()
		}
		if time.Since(lastClock) >= clockPeriod {
			a.sendClock()
			lastClock = time.Now()
		}
		a.mu.Unlock()
		if !busy {
			time.Sleep(checkPeriod)
		}
	}
}

// ringsFilled reports whether some stream ring holds at least 1/share of its size. It reads the
// rings' positions, which their producers move without a lock: a look may be a record behind.
func ringsFilled(share uint64) bool {
	for cpu := 0; cpu < trace.Boot().NCPU; cpu++ {
		if r := trace.Ring(cpu); r != nil && r.Mode() == ring.Stream && held(r) >= r.Size()/share {
			return true
		}
	}
	return false
}

// held is the bytes of records r holds.
func held(r *ring.Ring) uint64 {
	first, second := r.Peek()
	return uint64(first.Len + second.Len)
}

// drainStream moves what the stream rings hold now to the port, and reports whether a ring is
// filling faster than one pass drains it (busy: still half full after). It does not drain until
// empty: draining fires tracepoints of its own (system calls, context switches), so that would
// never end. Flight rings keep their records until a snapshot. Call with mu held.
func (a *agent) drainStream() (busy bool) {
	for cpu := 0; cpu < trace.Boot().NCPU; cpu++ {
		r := trace.Ring(cpu)
		if r == nil || r.Mode() != ring.Stream {
			continue
		}
		drainRing(cpu, passLimit)
		if held(r) > r.Size()/2 {
			busy = true
		}
	}
	return busy
}

// drainAll empties every ring up to what it held when called (a flush, a snapshot, the end),
// and returns the record bytes sent. Call with mu held.
func (a *agent) drainAll() (total uint64, err error) {
	for cpu := 0; cpu < trace.Boot().NCPU; cpu++ {
		r := trace.Ring(cpu)
		if r == nil || r.Size() == 0 {
			continue
		}
		// Enough frames for a full ring: records emitted meanwhile wait for the next drain.
		n, err := drainRing(cpu, int(r.Size()/trace.MaxSendPayload)+2)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// drainRing has the kernel send cpu's records, at most passes frames of them, until the ring
// is empty; it returns the record bytes sent.
func drainRing(cpu, passes int) (total uint64, err error) {
	for range passes {
		n, err := drain(cpu)
		if err != nil || n == 0 {
			return total, err
		}
		total += n
	}
	return total, nil
}
