// XORSHIFT_LOOP runs CX xorshift64 steps (Marsaglia's 13, 7, 17) on AX; CX must not be 0. The
// loop starts a 64-byte block, so that it never straddles a page (shares_amd64.s says why under
// QEMU TCG), and is the same instructions in every workload that uses it. Clobbers CX (0 after)
// and DX. It defines the label loop: once per function.
#define XORSHIFT_LOOP \
	PCALIGN	$64; \
loop: \
	MOVQ	AX, DX; \
	SHLQ	$13, DX; \
	XORQ	DX, AX; \
	MOVQ	AX, DX; \
	SHRQ	$7, DX; \
	XORQ	DX, AX; \
	MOVQ	AX, DX; \
	SHLQ	$17, DX; \
	XORQ	DX, AX; \
	DECQ	CX; \
	JNZ	loop
