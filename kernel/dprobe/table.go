package dprobe

import (
	"sync/atomic"

	"github.com/unitrace/unitrace/probe"
)

// Capacities.
const (
	MaxProbes = 64   // probe numbers are 1..MaxProbes
	MaxSites  = 512  // sites of every probe together
	tableSize = 1024 // pc table slots: at most half full, so a lookup ends soon
)

// Site states.
const (
	siteFree uint32 = iota
	siteStaged
	siteArmed
	siteRemoved // its instruction is back; it leaves the pc table once every CPU synchronised
)

// site is one breakpoint: where, what it displaced, for which probe.
type site struct {
	state atomic.Uint32
	probe uint16
	kind  probe.Kind
	pc    uintptr
	code  [probe.MaxInsnLen]byte
	len   uint8
	insn  probe.Insn
	hits  atomic.Uint64
	// strings the hits copy: registers, count, bytes of each
	strings     [probe.MaxStrings]probe.StringRegs
	nstrings    uint8
	stringBytes uint8
}

// Probe flags (probes[n]).
const (
	probeUsed      uint32 = 1 << 0
	probeArmed     uint32 = 1 << 1
	probeBacktrace uint32 = 1 << 2
)

var (
	sites  [MaxSites]site
	probes [MaxProbes + 1]atomic.Uint32
	// table maps a pc to its site: slot hash(pc) onwards holds index+1 of the sites armed or
	// being armed, tombstone for a removed one, 0 ends a lookup.
	table [tableSize]atomic.Uint32
	// live counts the sites in the table (tombstones aside); when it drops to 0 the table is
	// cleared of tombstones.
	live int
)

const tombstone = ^uint32(0)

// hash spreads a pc over the table (instructions are 1 to 4-byte aligned).
func hash(pc uintptr) uint32 {
	return uint32((uint64(pc) * 0x9e3779b97f4a7c15) >> 54) // the top 10 bits: tableSize slots
}

// lookup returns the index of the site at pc in the table, or -1.
func lookup(pc uintptr) int {
	h := hash(pc)
	for n := uint32(0); n < tableSize; n++ {
		v := table[(h+n)%tableSize].Load()
		switch {
		case v == 0:
			return -1
		case v != tombstone && v-1 < MaxSites && sites[v-1].pc == pc:
			return int(v - 1)
		}
	}
	return -1
}

// insert puts site i in the table; false when the table is full. Under the kernel lock.
func insert(i int) bool {
	if live >= tableSize/2 {
		return false
	}
	h := hash(sites[i].pc)
	for n := uint32(0); n < tableSize; n++ {
		s := &table[(h+n)%tableSize]
		if v := s.Load(); v == 0 || v == tombstone {
			s.Store(uint32(i) + 1)
			live++
			return true
		}
	}
	return false
}

// remove takes site i out of the table. Under the kernel lock, after every CPU has synchronised
// since its breakpoint went.
func remove(i int) {
	h := hash(sites[i].pc)
	for n := uint32(0); n < tableSize; n++ {
		s := &table[(h+n)%tableSize]
		switch s.Load() {
		case 0:
			return
		case uint32(i) + 1:
			s.Store(tombstone)
			live--
			if live == 0 {
				for j := range table {
					table[j].Store(0)
				}
			}
			return
		}
	}
}
