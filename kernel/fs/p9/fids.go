package p9

// MaxFids is how many fids a Client holds at once: every open file holds one, and so does every
// file the layer above keeps a handle on (the root, working directories, a walk in flight).
const MaxFids = 512

type fidState uint8

const (
	fidFree    fidState = iota
	fidPending          // allocated by an operation in flight: the server may not know it yet
	fidWalked           // names a file; not open (only such a fid may be walked from)
	fidOpen             // opened by Tlopen or Tlcreate
	fidClosing          // a Tclunk or Tremove is in flight: no further use
)

type fidEntry struct {
	state  fidState
	access uint8  // fidOpen: the access mode it was opened with (DotlRdonly, DotlWronly, DotlRdwr)
	iounit uint32 // fidOpen: the server's iounit, 0 for none
	qid    Qid
}

// fidTable numbers the client's fids: fid n is entry n. Allocation goes round the table from
// where the last one stopped, so a number just clunked is not handed out again at once (a late
// reply that still names it would otherwise be mistaken for the new file's).
type fidTable struct {
	e    [MaxFids]fidEntry
	next uint32
	used int
}

// alloc takes a free fid and marks it pending, or returns false if all are in use.
func (t *fidTable) alloc() (uint32, bool) {
	if t.used == MaxFids {
		return 0, false
	}
	for i := 0; i < MaxFids; i++ {
		f := (t.next + uint32(i)) % MaxFids
		if t.e[f].state == fidFree {
			t.e[f] = fidEntry{state: fidPending}
			t.next = (f + 1) % MaxFids
			t.used++
			return f, true
		}
	}
	return 0, false
}

// free returns fid to the table.
func (t *fidTable) free(fid uint32) {
	if fid < MaxFids && t.e[fid].state != fidFree {
		t.e[fid] = fidEntry{}
		t.used--
	}
}

// get returns fid's entry if fid is allocated.
func (t *fidTable) get(fid uint32) (*fidEntry, bool) {
	if fid >= MaxFids || t.e[fid].state == fidFree {
		return nil, false
	}
	return &t.e[fid], true
}

// reset forgets every fid (Tversion ends the session: the server clunks them all).
func (t *fidTable) reset() { *t = fidTable{} }
