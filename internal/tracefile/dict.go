package tracefile

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

// Dict is the tracepoint table of a recording, indexed by id.
type Dict struct {
	Entries []wire.DictEntry
	byID    map[record.TPID]int
}

// NewDict indexes the entries of one or more DICT frames. A later entry for
// the same id wins.
func NewDict(entries []wire.DictEntry) *Dict {
	d := &Dict{Entries: entries, byID: make(map[record.TPID]int, len(entries))}
	for i, e := range entries {
		d.byID[e.ID] = i
	}
	return d
}

// Entry returns the entry for id.
func (d *Dict) Entry(id record.TPID) (*wire.DictEntry, bool) {
	if d == nil {
		return nil, false
	}
	i, ok := d.byID[id]
	if !ok {
		return nil, false
	}
	return &d.Entries[i], true
}

// fixedNames are the names of the fixed-schema records.
var fixedNames = map[record.TPID]string{
	record.TPLost: "lost", record.TPSample: "sample", record.TPClock: "clock", record.TPThrottle: "throttle",
	record.TPGoroutine: "goroutine", record.TPWake: "wake", record.TPGoroutineSame: "goroutine_same",
	record.TPProbe: "probe",
}

// Name returns the tracepoint name of id: the DICT name, the fixed name of a
// built-in record, or "tpN".
func (d *Dict) Name(id record.TPID) string {
	if e, ok := d.Entry(id); ok && e.Name != "" {
		return e.Name
	}
	if n, ok := fixedNames[id]; ok {
		return n
	}
	return "tp" + strconv.Itoa(int(id))
}

// FormatArgs renders a record's arguments. Dictionary records follow their
// format string: each %-verb (any letter after %, "%%" is a literal %) takes
// the next argument, printed by its kind whatever the verb; arguments the
// format leaves over are appended as argN=V. Fixed-schema records have their
// own layout; records with no entry print their raw slots.
func (d *Dict) FormatArgs(r *record.Record) string {
	switch r.TPID {
	case record.TPLost:
		if l, ok := r.Lost(); ok {
			return fmt.Sprintf("first_seq=%d count=%d causes=%s", l.FirstSeq, l.Count, LostCauseString(l.Causes))
		}
	case record.TPClock:
		if ticks, ns, ok := r.Clock(); ok {
			return fmt.Sprintf("ticks=%d ns=%d", ticks, ns)
		}
	case record.TPThrottle:
		if o, n, ok := r.Throttle(); ok {
			return fmt.Sprintf("old_hz=%d new_hz=%d", o, n)
		}
	case record.TPGoroutine:
		if g, ok := r.Goroutine(); ok {
			return fmt.Sprintf("goid=%d state=%d reason=%d wait=%d thread_state=%d waited=%v period=%v syscall=%d gopc=%#x sweep=%d",
				g.ID, g.State.State(), g.State.Reason(), g.State.Wait(), g.State.Thread(), time.Duration(g.WaitNs),
				time.Duration(g.PeriodNs), g.Syscall, g.GoPC, g.Sweep)
		}
	case record.TPGoroutineSame:
		if id, ns, n, ok := r.GoroutineSame(); ok {
			return fmt.Sprintf("goid=%d for=%v sweeps=%d", id, time.Duration(ns), n)
		}
	case record.TPWake:
		if w, ok := r.Wake(); ok {
			return fmt.Sprintf("goid=%d blocked=%v wait=%d syscall=%d waker=%s waker_goid=%d waker_tid=%d woken_words=%d",
				w.Woken, time.Duration(w.BlockedNs), w.Wait, w.Syscall, w.Waker, w.WakerGoid, w.WakerTID, len(w.WokenStack))
		}
	case record.TPProbe:
		if p, ok := r.Probe(); ok {
			return fmt.Sprintf("probe=%d kind=%d pc=%#x sp=%#x goid=%d stack_hi=%#x ints=%x floats=%x", p.Probe, p.Kind, p.PC, p.SP, p.Goid, p.StackHi, p.Ints, p.Float)
		}
	case record.TPSample:
		if s, ok := r.Sample(); ok {
			return fmt.Sprintf("sp=%#x fp=%#x lr=%#x w0=%#x w1=%#x id=%d late=%v idle=%t kind=%d",
				s.SP, s.FP, s.LR, s.W0, s.W1, s.TID, time.Duration(s.LateNs), s.State&record.StateIdle != 0, s.State.Kind())
		}
	}
	e, ok := d.Entry(r.TPID)
	if !ok {
		return rawSlots(r.Args)
	}
	vals, extra := argValues(e.Kinds, r)
	var b strings.Builder
	next := 0
	f := e.Format
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 >= len(f) {
			b.WriteByte(f[i])
			continue
		}
		if f[i+1] == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		// Skip flags and width up to the verb letter.
		j := i + 1
		for j < len(f) && !isLetter(f[j]) {
			j++
		}
		if j >= len(f) {
			b.WriteString(f[i:])
			break
		}
		if next < len(vals) {
			b.WriteString(vals[next])
		} else {
			b.WriteString("<missing>")
		}
		next++
		i = j
	}
	for ; next < len(vals); next++ {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "arg%d=%s", next, vals[next])
	}
	if extra != "" {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(extra)
	}
	return b.String()
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// argValues renders each argument by its kind. Slots the kinds do not
// account for come back as extra, raw.
func argValues(kinds []record.Kind, r *record.Record) (vals []string, extra string) {
	slot := 0
	for _, k := range kinds {
		if slot+k.Slots() > len(r.Args) {
			vals = append(vals, "<missing>")
			continue
		}
		vals = append(vals, FormatValue(k, r, slot))
		slot += k.Slots()
	}
	if slot < len(r.Args) {
		extra = "extra=" + rawSlots(r.Args[slot:])
	}
	return vals, extra
}

// FormatValue renders the argument of kind k that starts at slot.
func FormatValue(k record.Kind, r *record.Record, slot int) string {
	if k == record.KStr {
		s, _ := r.String(slot)
		return strconv.Quote(s)
	}
	if slot < 0 || slot >= len(r.Args) {
		return "<missing>"
	}
	v := r.Args[slot]
	switch k {
	case record.KHex:
		return "0x" + strconv.FormatUint(v, 16)
	case record.KI64:
		return strconv.FormatInt(int64(v), 10)
	case record.KBool:
		if v == 0 {
			return "false"
		}
		if v == 1 {
			return "true"
		}
		return "bool(" + strconv.FormatUint(v, 10) + ")"
	case record.KDur:
		return time.Duration(v).String()
	}
	return strconv.FormatUint(v, 10)
}

func rawSlots(a []uint64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range a {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("0x" + strconv.FormatUint(v, 16))
	}
	b.WriteByte(']')
	return b.String()
}

// LostCauseString names the cause bits of a LOST record.
func LostCauseString(c record.LostCause) string {
	names := []struct {
		bit  record.LostCause
		name string
	}{{record.CauseRingFull, "ring_full"}, {record.CauseNested, "nested"}, {record.CauseBeforeRings, "early"},
		{1 << 3, "bad_size"}, {1 << 4, "uncommitted"}}
	var parts []string
	for _, n := range names {
		if c&n.bit != 0 {
			parts = append(parts, n.name)
			c &^= n.bit
		}
	}
	if c != 0 || len(parts) == 0 {
		parts = append(parts, "0x"+strconv.FormatUint(uint64(c), 16))
	}
	return strings.Join(parts, "|")
}
