package main

import (
	"crypto/sha256"
	"encoding/binary"
	"time"
)

const hashBlockSize = 64 << 10

// hashWorker hashes a 64 KiB block with SHA-256 until deadline, feeding each digest back into
// the block so every round depends on the one before.
func hashWorker(deadline time.Time) report {
	block := make([]byte, hashBlockSize)
	for i := range block {
		block[i] = byte(i * 7)
	}
	r := report{unit: "SHA-256 sums of 64 KiB"}
	for time.Now().Before(deadline) {
		sum := hashBlocks(block)
		copy(block, sum[:])
		r.ops++
		r.checksum = binary.LittleEndian.Uint64(sum[:8])
	}
	return r
}

func hashBlocks(block []byte) [sha256.Size]byte { return sha256.Sum256(block) }
