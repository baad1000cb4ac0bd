package agent

import (
	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/ring"
	"github.com/unitrace/unitrace/trace/wire"
)

// The agent's own frames on the data port. Call these with mu held.

// sendHello sends HELLO and the dictionary: the start of a session, and the reply to a host
// that (re)attaches and asks.
func (a *agent) sendHello() error {
	b := trace.Boot()
	r := trace.Ring(0) // the agent runs only once the kernel set the rings up
	mode := wire.ModeStream
	if r.Mode() == ring.Flight {
		mode = wire.ModeFlight
	}
	size := r.Size()
	dict := dictionary()
	a.points = len(dict.Entries)
	hello := &wire.Hello{
		ProtoMajor: wire.ProtoMajor, ProtoMinor: wire.ProtoMinor, RecordVersion: record.Version,
		Arch: b.Arch, NCPU: uint16(b.NCPU), TickSource: b.TickSource, RingMode: mode,
		PageSize: 4096, RingSize: size, TickHz: b.TickHz, RefTicks: b.RefTicks, RefNs: b.RefNs,
		RefUnixNs: b.RefUnixNs, TextStart: b.TextStart, DictHash: dict.Hash(),
		BuildID: trace.ImageBuildID(), Accel: b.AccelName(),
	}
	if err := send(hello); err != nil {
		return err
	}
	return sendDict(dict)
}

// sendDict sends the dictionary in as many DICT frames as it takes, each holding whole entries
// (the host joins them), all but the last with the more flag.
func sendDict(d *wire.Dict) error {
	var chunk wire.Dict
	size := 0
	for i, e := range d.Entries {
		one := &wire.Dict{Entries: []wire.DictEntry{e}}
		p, err := one.AppendPayload(nil)
		if err != nil {
			return err
		}
		entry := len(p) - 4 // without the count
		if size+entry+4 > trace.MaxSendPayload && len(chunk.Entries) > 0 {
			if err := sendFragment(&chunk, wire.FlagMore); err != nil {
				return err
			}
			chunk.Entries, size = nil, 0
		}
		chunk.Entries = append(chunk.Entries, d.Entries[i])
		size += entry
	}
	return sendFragment(&chunk, 0)
}

// sendFragment sends one DICT frame with the given flags.
func sendFragment(d *wire.Dict, flags uint16) error {
	p, err := d.AppendPayload(nil)
	if err != nil {
		return err
	}
	return sendRaw(wire.TypeDict, flags, p)
}

// sendClock sends a (ticks, ns, wall clock) reference, so the host can check the tick rate.
func (a *agent) sendClock() {
	ticks, ns, unixNs := clockPair()
	send(&wire.Clock{CPU: 0, Ticks: ticks, Ns: ns, UnixNs: unixNs})
}

// stats returns every CPU's counters.
func stats() *wire.Stats {
	s := &wire.Stats{Ticks: trace.Ticks()}
	for cpu := 0; cpu < trace.Boot().NCPU; cpu++ {
		s.CPUs = append(s.CPUs, trace.CPUStats(cpu))
	}
	return s
}

// finish ends the session at the host's stop: no more records, the rings emptied, the final
// counters, END.
func (a *agent) finish() error {
	if err := kernelCtl(trace.CtlStop, 0, 0); err != nil {
		return err
	}
	if _, err := a.drainAll(); err != nil {
		return err
	}
	if err := send(stats()); err != nil {
		return err
	}
	if err := send(&wire.End{Reason: wire.EndStop, Ticks: trace.Ticks()}); err != nil {
		return err
	}
	a.stopped = true
	return nil
}

// dictionary describes every registered tracepoint.
func dictionary() *wire.Dict {
	d := &wire.Dict{}
	for i := 0; i < trace.NumPoints(); i++ {
		p := trace.PointAt(i)
		e := wire.DictEntry{ID: record.TPID(p.ID()), Name: p.Name, Format: p.Format, Flags: pointFlags(p.Flags())}
		e.Kinds = append(e.Kinds, p.Args.Kinds[:p.Args.N]...)
		d.Entries = append(d.Entries, e)
	}
	return d
}

func pointFlags(f uint32) wire.PointFlags {
	var w wire.PointFlags
	if f&trace.Enabled != 0 {
		w |= wire.PointEnabled
	}
	if f&trace.Backtrace != 0 {
		w |= wire.PointBacktrace
	}
	if f&trace.InterruptBacktrace != 0 {
		w |= wire.PointInterruptBacktrace
	}
	return w
}
