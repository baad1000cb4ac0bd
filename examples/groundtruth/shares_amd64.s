#include "textflag.h"
#include "xorshift_amd64.h"

// share60, share30 and share10 are the same xorshift64 loop (Marsaglia's 13, 7, 17), written out
// three times so that each is a function of its own with the same instructions.
//
// They are in assembly for the sake of QEMU TCG, where the shares are measured: TCG chains a
// jump straight to the next translated block only within one guest page, so a loop that
// straddles a 4 KiB page boundary runs several times slower. Compiled Go gives no control over
// where a loop falls (a 43-byte Go loop at 0x1fcfe4 once ran ten times slower than its twins
// and took 87% of the samples), so here PCALIGN puts each loop at the start of a 64-byte block
// (which also aligns the function to 64 bytes): the loops never cross a page and every unit of
// work costs the same in each function.
//
// On entry: 0(SP) return address, x at 8(SP), n at 16(SP). Frameless leaves; clobber AX, CX, DX.

// func share60(x uint64, n int) uint64
TEXT ·share60(SB),NOSPLIT|NOFRAME,$0-24
	MOVQ	x+0(FP), AX
	MOVQ	n+8(FP), CX
	TESTQ	CX, CX
	JLE	done
	XORSHIFT_LOOP
done:
	MOVQ	AX, ret+16(FP)
	RET

// func share30(x uint64, n int) uint64
TEXT ·share30(SB),NOSPLIT|NOFRAME,$0-24
	MOVQ	x+0(FP), AX
	MOVQ	n+8(FP), CX
	TESTQ	CX, CX
	JLE	done
	XORSHIFT_LOOP
done:
	MOVQ	AX, ret+16(FP)
	RET

// func share10(x uint64, n int) uint64
TEXT ·share10(SB),NOSPLIT|NOFRAME,$0-24
	MOVQ	x+0(FP), AX
	MOVQ	n+8(FP), CX
	TESTQ	CX, CX
	JLE	done
	XORSHIFT_LOOP
done:
	MOVQ	AX, ret+16(FP)
	RET
