#include "textflag.h"

// The vDSO's functions. The image builder copies their machine code into the vDSO page
// (internal/image) and patches the 64-bit constant 0x5644534f50415241 (vdso.Magic) with the address of the
// clock parameters (vdso.Params*: +0 sequence count, +8 TSC base, +16 multiplier, +24 wall
// offset in ns): the code is otherwise position-independent (relative jumps only). They are
// C functions (System V ABI), called by the Go runtime on its system stack; they use no stack.
//
// The clock is the kernel's own: ns = (TSC - base) * mult >> 32 (the 128-bit product's bits
// 32-95, arch.Nanotime), plus the wall offset for the realtime clocks. Clocks they do not serve
// go to the system call.

// NANOS reads the kernel's clock into AX, in ns: (TSC - base) * mult >> 32, the 128-bit
// product's bits 32-95, with the parameters at R8. Clobbers DX.
#define NANOS \
	RDTSC \
	SHLQ	$32, DX \
	ORQ	DX, AX \
	SUBQ	8(R8), AX \
	MULQ	16(R8) \
	SHRQ	$32, AX \
	SHLQ	$32, DX \
	ORQ	DX, AX

// SECONDS splits the ns in AX into seconds (DX) and nanoseconds (R9) without DIV, which
// emulators run slowly: ns / 1e9 = ((ns >> 9) * 0x44b82fa09b5a53) >> 64 >> 11, exact for every
// 64-bit ns (the compilers' reciprocal for an unsigned division by 10^9). Clobbers AX.
#define SECONDS \
	MOVQ	AX, R9 \
	SHRQ	$9, AX \
	MOVQ	$0x44b82fa09b5a53, DX \
	MULQ	DX \
	SHRQ	$11, DX \
	IMUL3Q	$1000000000, DX, R10 \
	SUBQ	R10, R9

// vdsoClockGettime is __vdso_clock_gettime(clockid_t clk, struct timespec *ts).
// Entry: DI = clk, SI = ts. Serves REALTIME (0), MONOTONIC (1), MONOTONIC_RAW (4),
// REALTIME_COARSE (5), MONOTONIC_COARSE (6), BOOTTIME (7) and TAI (11); anything else is the
// clock_gettime system call (228) with the same registers. Clobbers AX, DX, R8-R11 (and CX,
// R11 in the system call). Returns 0 in AX, or the system call's result.
TEXT ·vdsoClockGettime(SB),NOSPLIT|NOFRAME,$0
	MOVQ	$0x5644534f50415241, R8
	CMPL	DI, $31
	JA	cgFallback
	MOVL	$0x8f3, R9
	BTL	DI, R9
	JCC	cgFallback
cgRetry:
	MOVL	0(R8), R10
	TESTL	$1, R10
	JNE	cgRetry
	NANOS
	MOVL	$0x821, R9 // the realtime ones: 0, 5, 11
	BTL	DI, R9
	JCC	cgMono
	ADDQ	24(R8), AX
cgMono:
	MOVL	0(R8), R11
	CMPL	R10, R11
	JNE	cgRetry
	SECONDS
	MOVQ	DX, 0(SI)
	MOVQ	R9, 8(SI)
	XORL	AX, AX
	RET
cgFallback:
	MOVL	$228, AX
	SYSCALL
	RET

// vdsoGettimeofday is __vdso_gettimeofday(struct timeval *tv, struct timezone *tz).
// Entry: DI = tv (may be NULL), SI = tz (may be NULL: else both its ints are set to 0, as
// Linux does without a configured time zone). Clobbers AX, DX, R8-R11. Returns 0 in AX.
TEXT ·vdsoGettimeofday(SB),NOSPLIT|NOFRAME,$0
	MOVQ	$0x5644534f50415241, R8
	TESTQ	SI, SI
	JEQ	gtNoZone
	MOVQ	$0, 0(SI)
gtNoZone:
	TESTQ	DI, DI
	JEQ	gtDone
gtRetry:
	MOVL	0(R8), R10
	TESTL	$1, R10
	JNE	gtRetry
	NANOS
	ADDQ	24(R8), AX
	MOVL	0(R8), R11
	CMPL	R10, R11
	JNE	gtRetry
	SECONDS
	MOVQ	DX, 0(DI)
	IMULQ	$274877907, R9 // microseconds: ns * ceil(2^38 / 1000) >> 38, exact below 2^32
	SHRQ	$38, R9
	MOVQ	R9, 8(DI)
gtDone:
	XORL	AX, AX
	RET

// The functions' addresses (ABI0: their code itself, not a Go wrapper), for the kernel to find
// and copy them.
DATA ·vdsoClockGettimePC+0(SB)/8, $·vdsoClockGettime(SB)
GLOBL ·vdsoClockGettimePC(SB), RODATA, $8
DATA ·vdsoGettimeofdayPC+0(SB)/8, $·vdsoGettimeofday(SB)
GLOBL ·vdsoGettimeofdayPC(SB), RODATA, $8
