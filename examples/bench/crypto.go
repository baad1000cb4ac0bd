package main

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
)

// The crypto rows: the standard library picks its code by the CPU features the kernel enables,
// so these measure the vector code each kernel lets the program use (unitrace: SSE only; Linux:
// AVX2 as well).

// sha256Bench: SHA-256 of a 64 KiB buffer, in ns per MiB.
func sha256Bench() float64 {
	buf := make([]byte, 64<<10)
	for i := range buf {
		buf[i] = byte(i)
	}
	var sum [sha256.Size]byte
	ns := perOp(64, func() { sum = sha256.Sum256(buf) })
	_ = sum
	return ns * 16 // 16 buffers a MiB
}

// aesGCMBench: AES-128-GCM sealing of a 64 KiB buffer, in ns per MiB.
func aesGCMBench() float64 {
	block, err := aes.NewCipher(make([]byte, 16))
	if err != nil {
		panic(err)
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	buf := make([]byte, 64<<10)
	out := make([]byte, 0, len(buf)+gcm.Overhead())
	nonce := make([]byte, gcm.NonceSize())
	ns := perOp(64, func() { out = gcm.Seal(out[:0], nonce, buf, nil) })
	return ns * 16
}
