package ring

import (
	"encoding/binary"
	"testing"
	"unsafe"
)

// testMem is ring memory for host tests: a Go buffer kept alive by the test
// (the Go heap does not move objects), 8-byte aligned.
type testMem struct {
	buf  []uint64
	base uintptr
}

// liveMem keeps every test ring's memory reachable: a Ring holds only the
// address, which does not keep a Go buffer alive.
var liveMem []*testMem

func newMem(size uint64) *testMem {
	m := &testMem{buf: make([]uint64, size/8)}
	m.base = uintptr(unsafe.Pointer(&m.buf[0]))
	liveMem = append(liveMem, m)
	return m
}

func (m *testMem) bytes() []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&m.buf[0])), len(m.buf)*8)
}

func newRing(t testing.TB, size uint64, mode Mode) (*Ring, *testMem) {
	t.Helper()
	m := newMem(size)
	r := new(Ring)
	if !r.Init(m.base, size, 3, mode) {
		t.Fatalf("Init(%d, %v) failed", size, mode)
	}
	return r, m
}

const testTpid = 16

// fill writes the caller's part of a record: tpid, tid and a payload that
// is a function of seq, so a reader can check the record is intact.
func fill(a uintptr, n uint32, seq uint32) {
	put16(a+offTpid, testTpid)
	put16(a+4, 0)
	put32(a+offTid, seq^0x5a5a5a5a)
	for off := uintptr(HeaderSize); off < uintptr(n); off += 8 {
		put64(a+off, uint64(seq)<<32|uint64(off))
	}
}

// emit reserves, fills and commits one record; it returns the seq and
// whether the record was written.
func emit(r *Ring, n uint32, ts uint64) (uint32, bool) {
	a, seq, ok := r.Reserve(n, ts)
	if !ok {
		return 0, false
	}
	fill(a, n, seq)
	r.Commit()
	return seq, true
}

type rec struct {
	size, tpid uint16
	cpu        uint16
	ts         uint64
	seq        uint32
	args       [4]uint64 // LOST: count, first_ts, last_ts, causes
}

// parse decodes a run of records (no PADs expected) and checks each data
// record's payload; it reports the first problem.
func parse(t testing.TB, b []byte) []rec {
	t.Helper()
	var out []rec
	for len(b) > 0 {
		if len(b) < HeaderSize {
			t.Fatalf("%d trailing bytes", len(b))
		}
		r := rec{
			size: binary.LittleEndian.Uint16(b[0:]),
			tpid: binary.LittleEndian.Uint16(b[2:]),
			cpu:  binary.LittleEndian.Uint16(b[6:]),
			ts:   binary.LittleEndian.Uint64(b[8:]),
			seq:  binary.LittleEndian.Uint32(b[20:]),
		}
		if int(r.size) < HeaderSize || int(r.size) > len(b) || r.size%8 != 0 {
			t.Fatalf("bad record size %d with %d bytes left", r.size, len(b))
		}
		switch r.tpid {
		case tpidLost:
			if r.size != LostSize {
				t.Fatalf("LOST of size %d", r.size)
			}
			for i := range r.args {
				r.args[i] = binary.LittleEndian.Uint64(b[HeaderSize+8*i:])
			}
		case testTpid:
			if tid := binary.LittleEndian.Uint32(b[16:]); tid != r.seq^0x5a5a5a5a {
				t.Fatalf("seq %d: tid %#x", r.seq, tid)
			}
			for off := HeaderSize; off < int(r.size); off += 8 {
				if v := binary.LittleEndian.Uint64(b[off:]); v != uint64(r.seq)<<32|uint64(off) {
					t.Fatalf("seq %d: payload word at %d is %#x", r.seq, off, v)
				}
			}
		default:
			t.Fatalf("unexpected tpid %d", r.tpid)
		}
		out = append(out, r)
		b = b[r.size:]
	}
	return out
}

// drain copies and releases everything committed.
func drain(t testing.TB, r *Ring) []rec {
	t.Helper()
	buf := make([]byte, r.Size())
	n, consumed := r.CopyOut(buf)
	if !r.Release(consumed) {
		t.Fatalf("Release(%d) refused", consumed)
	}
	return parse(t, buf[:n])
}
