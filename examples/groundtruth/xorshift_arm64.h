// XORSHIFT_LOOP runs R1 xorshift64 steps (Marsaglia's 13, 7, 17) on R0; R1 must not be 0. The
// loop starts a 64-byte block, so that it never straddles a page (shares_amd64.s says why under
// QEMU TCG), and is the same instructions in every workload that uses it. Clobbers R1 (0
// after). It defines the label loop: once per function.
#define XORSHIFT_LOOP \
	PCALIGN	$64; \
loop: \
	EOR	R0<<13, R0, R0; \
	EOR	R0>>7, R0, R0; \
	EOR	R0<<17, R0, R0; \
	SUB	$1, R1, R1; \
	CBNZ	R1, loop
