// Package agent is the guest's trace agent: an ordinary goroutine (not kernel-mode code) that
// drains the per-CPU rings into wire frames on the trace data port (descriptor 3). Its writes
// block while the host does not read; the rings then fill and drop new records, counted, so the
// code that emits tracepoints never blocks.
package agent

import (
	"encoding/binary"
	"sync"
	"syscall"
	"time"

	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/ring"
	"github.com/unitrace/unitrace/trace/wire"
)

// DataFD is the trace data port's descriptor, opened by the kernel at boot.
const DataFD = 3

// drainPeriod is how often an idle drain looks at the rings again.
const drainPeriod = 10 * time.Millisecond

var once sync.Once

// Start launches the drain goroutine once. The kernel calls it from an init function when it
// booted with a trace device.
func Start() {
	once.Do(func() { go drain() })
}

// portWriter writes whole buffers to the data port, a bounded chunk per system call.
type portWriter struct{}

func (portWriter) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		n, err := syscall.Write(DataFD, p[done:])
		if err != nil {
			return done, err
		}
		done += n
	}
	return done, nil
}

func drain() {
	w := wire.NewWriter(portWriter{})
	b := trace.Boot()
	mode := wire.ModeStream
	if b.Flight {
		mode = wire.ModeFlight
	}
	dict := dictionary()
	hello := &wire.Hello{
		ProtoMajor: wire.ProtoMajor, ProtoMinor: wire.ProtoMinor, RecordVersion: record.Version,
		Arch: wire.ArchAMD64, NCPU: uint16(b.NCPU), TickSource: wire.TickTSC, RingMode: mode,
		PageSize: 4096, RingSize: b.RingSize, TickHz: b.TickHz, RefTicks: b.RefTicks, RefNs: b.RefNs,
		RefUnixNs: b.RefUnixNs, TextStart: b.TextStart, DictHash: dict.Hash(), Accel: "unknown",
	}
	if w.WriteMessage(hello) != nil || w.WriteMessage(dict) != nil {
		return
	}
	buf := make([]byte, 60<<10)
	for {
		busy := false
		for cpu := 0; cpu < b.NCPU; cpu++ {
			r := trace.Ring(cpu)
			if r == nil || r.Mode() != ring.Stream {
				continue
			}
			// Drain what is there now, then rest: draining emits records of its own (its
			// writes block and switch threads), so "drain until empty" would never end.
			for pass := 0; pass < 64; pass++ {
				n, consumed := r.CopyOut(buf)
				if consumed == 0 {
					break
				}
				r.Release(consumed) // the records are in buf now: the ring may reuse their room
				if n == 0 {
					continue // only PADs
				}
				first := binary.LittleEndian.Uint32(buf[record.OffSeq:])
				if w.WriteMessage(&wire.Data{CPU: uint16(cpu), FirstSeq: first, Records: buf[:n]}) != nil {
					return
				}
			}
			first, second := r.Peek()
			if first.Len+second.Len > r.Size()/2 {
				busy = true // filling faster than one pass per period drains it
			}
		}
		if !busy {
			time.Sleep(drainPeriod)
		}
	}
}

// dictionary describes every registered tracepoint.
func dictionary() *wire.Dict {
	d := &wire.Dict{}
	for i := 0; i < trace.NumPoints(); i++ {
		p := trace.PointAt(i)
		e := wire.DictEntry{ID: record.TPID(p.ID()), Name: p.Name, Format: p.Format}
		f := p.Flags()
		if f&trace.Enabled != 0 {
			e.Flags |= wire.PointEnabled
		}
		if f&trace.Backtrace != 0 {
			e.Flags |= wire.PointBacktrace
		}
		if f&trace.InterruptBacktrace != 0 {
			e.Flags |= wire.PointInterruptBacktrace
		}
		e.Kinds = append(e.Kinds, p.Args.Kinds[:p.Args.N]...)
		d.Entries = append(d.Entries, e)
	}
	return d
}
