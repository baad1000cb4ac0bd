#include "textflag.h"
#include "xorshift_arm64.h"

// share60, share30 and share10 are the same xorshift64 loop (Marsaglia's 13, 7, 17), written out
// three times so that each is a function of its own with the same instructions. They are in
// assembly so that PCALIGN can put each loop at the start of a 64-byte block: under QEMU TCG a
// loop that straddles a 4 KiB page boundary runs several times slower (see shares_amd64.s).
//
// On entry: R30 return address, x at 8(RSP), n at 16(RSP). Frameless leaves; clobber R0, R1.

// func share60(x uint64, n int) uint64
TEXT ·share60(SB),NOSPLIT|NOFRAME,$0-24
	MOVD	x+0(FP), R0
	MOVD	n+8(FP), R1
	CMP	$0, R1
	BLE	done
	XORSHIFT_LOOP
done:
	MOVD	R0, ret+16(FP)
	RET

// func share30(x uint64, n int) uint64
TEXT ·share30(SB),NOSPLIT|NOFRAME,$0-24
	MOVD	x+0(FP), R0
	MOVD	n+8(FP), R1
	CMP	$0, R1
	BLE	done
	XORSHIFT_LOOP
done:
	MOVD	R0, ret+16(FP)
	RET

// func share10(x uint64, n int) uint64
TEXT ·share10(SB),NOSPLIT|NOFRAME,$0-24
	MOVD	x+0(FP), R0
	MOVD	n+8(FP), R1
	CMP	$0, R1
	BLE	done
	XORSHIFT_LOOP
done:
	MOVD	R0, ret+16(FP)
	RET
