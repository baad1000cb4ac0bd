package main

import (
	"fmt"
	"runtime"
	"slices"
)

const (
	blockSize   = 1 << 20
	blocks      = 384 // MiB allocated in total
	liveBlocks  = 8   // kept reachable at any time: the heap stays small
	gcEvery     = 64  // blocks between forced collections
	probeStride = 512 // bytes between zero checks in a fresh block
)

// allocate churns through hundreds of MiB while forcing collections. Fresh
// memory must read as zero (the runtime relies on the kernel's zero-filled
// pages) and live blocks must keep their contents across collections.
func allocate() (string, error) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var live [liveBlocks][]byte
	for i := range blocks {
		b := make([]byte, blockSize)
		for off := 0; off < len(b); off += probeStride {
			if b[off] != 0 {
				return "", fmt.Errorf("block %d: fresh memory not zero at offset %d", i, off)
			}
		}
		fill(b, i)
		slot := i % liveBlocks
		if old := live[slot]; old != nil {
			if err := verify(old, i-liveBlocks); err != nil {
				return "", err
			}
		}
		live[slot] = b
		if i%gcEvery == gcEvery-1 {
			runtime.GC()
		}
	}
	runtime.ReadMemStats(&after)
	if gcs := after.NumGC - before.NumGC; gcs < blocks/gcEvery {
		return "", fmt.Errorf("%d collections, want at least %d", gcs, blocks/gcEvery)
	}
	return fmt.Sprintf("allocated %d MiB in %d KiB blocks, fresh memory zero, live blocks intact", blocks*blockSize>>20, blockSize>>10), nil
}

// fill writes a pattern derived from the block number into every page.
func fill(b []byte, n int) {
	for off := 0; off < len(b); off += 4096 {
		b[off] = byte(n)
		b[off+4095] = byte(n >> 8)
	}
}

func verify(b []byte, n int) error {
	for off := 0; off < len(b); off += 4096 {
		if b[off] != byte(n) || b[off+4095] != byte(n>>8) {
			return fmt.Errorf("block %d changed at offset %d", n, off)
		}
	}
	return nil
}

// maps exercises map growth, deletion and fmt formatting.
func maps() (string, error) {
	m := make(map[string]int)
	for i := range 1000 {
		m[fmt.Sprintf("key-%04d", i)] = i
	}
	sum := 0
	for _, v := range m {
		sum += v
	}
	for k, v := range m {
		if v%2 == 0 {
			delete(m, k)
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) != 500 || sum != 499500 {
		return "", fmt.Errorf("%d keys left, sum %d", len(keys), sum)
	}
	return fmt.Sprintf("1000 keys, sum %d; %d left, first %v", sum, len(keys), keys[:3]), nil
}
