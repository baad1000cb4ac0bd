package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/ring"
)

// streamRecordSize is the size of every record the stream test emits (Emit4: four slots).
const streamRecordSize = record.HeaderSize + 4*record.SlotSize

// stream emits that many fixed-size records into CPU 0's stream ring as fast as the agent drains
// it to the data port, without losing one, then writes as many bytes to the console (fd 1, the
// 16550 UART) and prints both times and the ratio.
//
// Zero loss by pacing: a burst is emitted only while the ring is at most half full and a burst
// is at most a quarter of the ring, so the ring never has less room than a burst needs (this
// program's tracepoint is the only one enabled). Over half full, the emitter yields to the
// agent, then sleeps briefly if that was not enough. The agent sleeps between passes only while
// the ring is at most half full, so half is also where it stops resting.
func stream(records, burst int) error {
	r := trace.Ring(0)
	if r.Mode() != ring.Stream {
		return errors.New("the ring is not a stream ring (boot without -mode flight)")
	}
	if records <= 0 || burst <= 0 {
		return errors.New("-records and -burst must be positive")
	}
	burst = min(burst, int(r.Size()/4/streamRecordSize))
	tpStream.SetFlags(trace.Enabled)
	defer tpStream.SetFlags(0)

	before := r.Stats()
	yields, sleeps := 0, 0
	var w stallWatch
	start := time.Now()
	for sent := 0; sent < records; {
		if used(r) > r.Size()/2 {
			runtime.Gosched()
			yields++
			if used(r) > r.Size()/2 {
				time.Sleep(100 * time.Microsecond)
				sleeps++
			}
			if err := w.check(r); err != nil {
				return fmt.Errorf("after %d of %d records: %w", sent, records, err)
			}
			continue
		}
		k := min(burst, records-sent)
		streamLoop(sent, k)
		sent += k
	}
	emitted := time.Since(start)
	for used(r) > 0 {
		time.Sleep(time.Millisecond)
		if err := w.check(r); err != nil {
			return fmt.Errorf("after all %d records: %w", records, err)
		}
	}
	drained := time.Since(start)
	tpStream.SetFlags(0)
	after := r.Stats()

	written := after.Written - before.Written
	bytes := after.Bytes - before.Bytes
	var dropped uint64
	for i := range after.Dropped {
		dropped += after.Dropped[i] - before.Dropped[i]
	}
	fmt.Printf("tracebench: stream %d bytes %.3f s %.2f MB/s %d records %d dropped %.3f emit_s %d ring %d burst %d yields %d sleeps\n",
		bytes, drained.Seconds(), mbps(bytes, drained), written, dropped, emitted.Seconds(), r.Size(), burst, yields, sleeps)
	if dropped != 0 || written != uint64(records) {
		return fmt.Errorf("stream lost records: %d of %d written, %d dropped", written, records, dropped)
	}

	uart, err := writeConsole(bytes)
	if err != nil {
		return err
	}
	fmt.Printf("tracebench: uart %d bytes %.3f s %.2f MB/s\n", bytes, uart.Seconds(), mbps(bytes, uart))
	fmt.Printf("tracebench: stream_vs_uart %.1f x\n", uart.Seconds()/drained.Seconds())
	return nil
}

// streamLoop emits k records numbered from first.
//
//go:noinline
func streamLoop(first, k int) {
	for i := first; i < first+k; i++ {
		tpStream.Emit4(uint64(i), 0xa, 0xb, 0xc)
	}
}

// stallLimit is how long the ring may stay exactly as full as it was before the stream test
// gives up: the agent has stopped draining, and waiting for -timeout would say less.
const stallLimit = 10 * time.Second

// stallWatch notices a ring whose fill level stops changing while the emitter waits.
type stallWatch struct {
	last  uint64
	since time.Time
}

func (w *stallWatch) check(r *ring.Ring) error {
	u, now := used(r), time.Now()
	if u != w.last || w.since.IsZero() {
		w.last, w.since = u, now
		return nil
	}
	if now.Sub(w.since) > stallLimit {
		s := r.Stats()
		return fmt.Errorf("the agent stopped draining: the ring has held %d bytes for %v (written %d, dropped %v)",
			u, now.Sub(w.since).Round(time.Second), s.Written, s.Dropped)
	}
	return nil
}

// used is how many bytes the ring holds that the agent has not taken yet.
func used(r *ring.Ring) uint64 {
	f, s := r.Peek()
	return f.Len + s.Len
}

// consoleLine is the filler the console test writes: 80 bytes a line, so the console's
// "\n" to "\r\n" adds one byte in 80 on the wire.
const consoleLine = "...............................................................................\n"

// writeConsole writes n bytes of filler lines to standard output (the UART) and returns how
// long that took. The last byte is a newline, so the result lines that follow start clean.
func writeConsole(n uint64) (time.Duration, error) {
	buf := make([]byte, 0, 64<<10)
	for len(buf)+len(consoleLine) <= cap(buf) {
		buf = append(buf, consoleLine...)
	}
	start := time.Now()
	for left := n; left > 0; {
		chunk := buf[:min(uint64(len(buf)), left)]
		if uint64(len(chunk)) == left {
			chunk[len(chunk)-1] = '\n'
		}
		if _, err := os.Stdout.Write(chunk); err != nil {
			return 0, err
		}
		left -= uint64(len(chunk))
	}
	return time.Since(start), nil
}

func mbps(bytes uint64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(bytes) / 1e6 / d.Seconds()
}
