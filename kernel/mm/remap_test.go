package mm

import (
	"reflect"
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
)

func TestRemap(t *testing.T) {
	const pg = PageSize
	const rw = ProtRead | ProtWrite
	type want struct {
		r       Remapping
		errno   int
		regions []Region
	}
	cases := []struct {
		name  string
		setup func(s *Space)
		addr  uintptr
		old   uintptr
		new   uintptr
		flags uint32
		to    uintptr
		want  want
	}{
		{"bad flags", nil, tBase - 4*pg, pg, pg, 8, 0, want{errno: abi.EINVAL}},
		{"fixed without maymove", nil, tBase - 4*pg, pg, pg, RemapFixed, 0, want{errno: abi.EINVAL}},
		{"dontunmap resize", nil, tBase - 4*pg, pg, 2 * pg, RemapMayMove | RemapDontUnmap, 0, want{errno: abi.EINVAL}},
		{"unaligned", nil, tBase - 4*pg + 1, pg, pg, 0, 0, want{errno: abi.EINVAL}},
		{"new length 0", nil, tBase - 4*pg, pg, 0, 0, 0, want{errno: abi.EINVAL}},
		{"old length 0", nil, tBase - 4*pg, 0, pg, RemapMayMove, 0, want{errno: abi.EINVAL}},
		{"unmapped", nil, tBase - 8*pg, pg, 2 * pg, RemapMayMove, 0, want{errno: abi.EFAULT}},
		{"across regions", func(s *Space) { s.Protect(tBase-3*pg, pg, ProtRead) }, tBase - 4*pg, 2 * pg, 3 * pg, RemapMayMove, 0, want{errno: abi.EFAULT}},
		{"shrink", nil, tBase - 4*pg, 4 * pg, pg, 0, 0, want{
			r:       Remapping{Addr: tBase - 4*pg, From: tBase - 4*pg, To: tBase - 4*pg, Clear: tBase - 3*pg, ClearLen: 3 * pg},
			regions: []Region{{Start: tBase - 4*pg, End: tBase - 3*pg, Prot: rw}}}},
		{"grow in place", func(s *Space) { s.Unmap(tBase-2*pg, 2*pg) }, tBase - 4*pg, 2 * pg, 3 * pg, 0, 0, want{
			r:       Remapping{Addr: tBase - 4*pg, From: tBase - 4*pg, To: tBase - 4*pg},
			regions: []Region{{Start: tBase - 4*pg, End: tBase - pg, Prot: rw}}}},
		{"grow blocked", nil, tBase - 4*pg, 2 * pg, 3 * pg, 0, 0, want{errno: abi.ENOMEM}},
		{"grow moves", nil, tBase - 4*pg, 2 * pg, 3 * pg, RemapMayMove, 0, want{
			r:       Remapping{Addr: tBase - 7*pg, From: tBase - 4*pg, To: tBase - 7*pg, Keep: 2 * pg, Clear: tBase - 4*pg, ClearLen: 2 * pg},
			regions: []Region{{Start: tBase - 7*pg, End: tBase - 4*pg, Prot: rw}, {Start: tBase - 2*pg, End: tBase, Prot: rw}}}},
		{"fixed", nil, tBase - 4*pg, pg, pg, RemapMayMove | RemapFixed, tBase - 10*pg, want{
			r:       Remapping{Addr: tBase - 10*pg, From: tBase - 4*pg, To: tBase - 10*pg, Keep: pg, Clear: tBase - 4*pg, ClearLen: pg, Drop: tBase - 10*pg, DropLen: pg},
			regions: []Region{{Start: tBase - 10*pg, End: tBase - 9*pg, Prot: rw}, {Start: tBase - 3*pg, End: tBase, Prot: rw}}}},
		{"fixed overlap", nil, tBase - 4*pg, 2 * pg, 2 * pg, RemapMayMove | RemapFixed, tBase - 5*pg, want{errno: abi.EINVAL}},
		{"fixed unaligned", nil, tBase - 4*pg, pg, pg, RemapMayMove | RemapFixed, tBase - 10*pg + 1, want{errno: abi.EINVAL}},
		{"fixed into the kernel", nil, tBase - 4*pg, pg, pg, RemapMayMove | RemapFixed, tKernelLo, want{errno: abi.ENOMEM}},
		{"dontunmap", nil, tBase - 4*pg, pg, pg, RemapMayMove | RemapDontUnmap, 0, want{
			r:       Remapping{Addr: tBase - 5*pg, From: tBase - 4*pg, To: tBase - 5*pg, Keep: pg, Clear: tBase - 4*pg, ClearLen: pg},
			regions: []Region{{Start: tBase - 5*pg, End: tBase, Prot: rw}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newTestSpace(t)
			if _, e := s.Map(tBase-4*pg, 4*pg, rw, true); e != 0 {
				t.Fatal(e)
			}
			if c.setup != nil {
				c.setup(s)
			}
			before := regionsOf(s)
			r, errno := s.Remap(c.addr, c.old, c.new, c.flags, c.to)
			if errno != c.want.errno || r != c.want.r {
				t.Fatalf("Remap = %+v, %d; want %+v, %d", r, errno, c.want.r, c.want.errno)
			}
			wantRegions := c.want.regions
			if errno != 0 {
				wantRegions = before
			}
			if got := regionsOf(s); !reflect.DeepEqual(got, wantRegions) {
				t.Fatalf("regions %x, want %x", got, wantRegions)
			}
		})
	}
}
