//go:build amd64 && !purego

#include "textflag.h"

// The loops of kernel.go in AVX2: SI walks a, DI walks b, CX counts the
// floats left (a multiple of 8). Y0-Y3 are the four 8-lane accumulators;
// multiplies and adds stay separate (no FMA) so the portable Go gives the
// same bits.

#define ZERO4 \
	VXORPS Y0, Y0, Y0 \
	VXORPS Y1, Y1, Y1 \
	VXORPS Y2, Y2, Y2 \
	VXORPS Y3, Y3, Y3

// FOLD leaves fold(acc) in X0's lowest float.
#define FOLD \
	VADDPS Y1, Y0, Y0 \
	VADDPS Y3, Y2, Y2 \
	VADDPS Y2, Y0, Y0 \
	VEXTRACTF128 $1, Y0, X1 \
	VADDPS X1, X0, X0 \
	VMOVHLPS X0, X0, X1 \
	VADDPS X1, X0, X0 \
	VMOVSHDUP X0, X1 \
	VADDSS X1, X0, X0

#define L2BODY(l32, l8, done) \
l32: \
	CMPQ CX, $32 \
	JLT l8 \
	VMOVUPS (SI), Y4 \
	VMOVUPS 32(SI), Y5 \
	VMOVUPS 64(SI), Y6 \
	VMOVUPS 96(SI), Y7 \
	VSUBPS (DI), Y4, Y4 \
	VSUBPS 32(DI), Y5, Y5 \
	VSUBPS 64(DI), Y6, Y6 \
	VSUBPS 96(DI), Y7, Y7 \
	VMULPS Y4, Y4, Y4 \
	VMULPS Y5, Y5, Y5 \
	VMULPS Y6, Y6, Y6 \
	VMULPS Y7, Y7, Y7 \
	VADDPS Y4, Y0, Y0 \
	VADDPS Y5, Y1, Y1 \
	VADDPS Y6, Y2, Y2 \
	VADDPS Y7, Y3, Y3 \
	ADDQ $128, SI \
	ADDQ $128, DI \
	SUBQ $32, CX \
	JMP l32 \
l8: \
	CMPQ CX, $8 \
	JLT done \
	VMOVUPS (SI), Y4 \
	VSUBPS (DI), Y4, Y4 \
	VMULPS Y4, Y4, Y4 \
	VADDPS Y4, Y0, Y0 \
	ADDQ $32, SI \
	ADDQ $32, DI \
	SUBQ $8, CX \
	JMP l8 \
done:

#define DOTBODY(l32, l8, done) \
l32: \
	CMPQ CX, $32 \
	JLT l8 \
	VMOVUPS (SI), Y4 \
	VMOVUPS 32(SI), Y5 \
	VMOVUPS 64(SI), Y6 \
	VMOVUPS 96(SI), Y7 \
	VMULPS (DI), Y4, Y4 \
	VMULPS 32(DI), Y5, Y5 \
	VMULPS 64(DI), Y6, Y6 \
	VMULPS 96(DI), Y7, Y7 \
	VADDPS Y4, Y0, Y0 \
	VADDPS Y5, Y1, Y1 \
	VADDPS Y6, Y2, Y2 \
	VADDPS Y7, Y3, Y3 \
	ADDQ $128, SI \
	ADDQ $128, DI \
	SUBQ $32, CX \
	JMP l32 \
l8: \
	CMPQ CX, $8 \
	JLT done \
	VMOVUPS (SI), Y4 \
	VMULPS (DI), Y4, Y4 \
	VADDPS Y4, Y0, Y0 \
	ADDQ $32, SI \
	ADDQ $32, DI \
	SUBQ $8, CX \
	JMP l8 \
done:

// func l2sqAVX2(a, b *float32, n int) float32
TEXT ·l2sqAVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	ZERO4
	L2BODY(l2l32, l2l8, l2done)
	FOLD
	VMOVSS X0, ret+24(FP)
	VZEROUPPER
	RET

// func dotAVX2(a, b *float32, n int) float32
TEXT ·dotAVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	ZERO4
	DOTBODY(dl32, dl8, ddone)
	FOLD
	VMOVSS X0, ret+24(FP)
	VZEROUPPER
	RET

// func l2sqBatchAVX2(x, rows *float32, dim, k int, out *float32)
// DI runs through the k rows, which lie back to back.
TEXT ·l2sqBatchAVX2(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), R8
	MOVQ rows+8(FP), DI
	MOVQ dim+16(FP), R9
	MOVQ k+24(FP), R10
	MOVQ out+32(FP), R11
l2brow:
	TESTQ R10, R10
	JZ l2bend
	MOVQ R8, SI
	MOVQ R9, CX
	ZERO4
	L2BODY(l2bl32, l2bl8, l2bdone)
	FOLD
	VMOVSS X0, (R11)
	ADDQ $4, R11
	DECQ R10
	JMP l2brow
l2bend:
	VZEROUPPER
	RET

// func dotBatchAVX2(x, rows *float32, dim, k int, out *float32)
TEXT ·dotBatchAVX2(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), R8
	MOVQ rows+8(FP), DI
	MOVQ dim+16(FP), R9
	MOVQ k+24(FP), R10
	MOVQ out+32(FP), R11
dbrow:
	TESTQ R10, R10
	JZ dbend
	MOVQ R8, SI
	MOVQ R9, CX
	ZERO4
	DOTBODY(dbl32, dbl8, dbdone)
	FOLD
	VMOVSS X0, (R11)
	ADDQ $4, R11
	DECQ R10
	JMP dbrow
dbend:
	VZEROUPPER
	RET

// func l2sq8TAVX2(x, t *float32, k int, out *float32)
// Eight centroids a step: Y8-Y15 hold x[0..7] broadcast, row j of t is at
// SI + j*BX (BX = 4k bytes, DX = 3*BX, R12 = SI + 4*BX), k a multiple of 8.
TEXT ·l2sq8TAVX2(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), AX
	MOVQ t+8(FP), SI
	MOVQ k+16(FP), CX
	MOVQ out+24(FP), DI
	VBROADCASTSS 0(AX), Y8
	VBROADCASTSS 4(AX), Y9
	VBROADCASTSS 8(AX), Y10
	VBROADCASTSS 12(AX), Y11
	VBROADCASTSS 16(AX), Y12
	VBROADCASTSS 20(AX), Y13
	VBROADCASTSS 24(AX), Y14
	VBROADCASTSS 28(AX), Y15
	MOVQ CX, BX
	SHLQ $2, BX
	LEAQ (BX)(BX*2), DX
	LEAQ (SI)(BX*4), R12
t8loop:
	CMPQ CX, $8
	JLT t8done
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(BX*1), Y1
	VMOVUPS (SI)(BX*2), Y2
	VMOVUPS (SI)(DX*1), Y3
	VMOVUPS (R12), Y4
	VMOVUPS (R12)(BX*1), Y5
	VMOVUPS (R12)(BX*2), Y6
	VMOVUPS (R12)(DX*1), Y7
	VSUBPS Y0, Y8, Y0
	VSUBPS Y1, Y9, Y1
	VSUBPS Y2, Y10, Y2
	VSUBPS Y3, Y11, Y3
	VSUBPS Y4, Y12, Y4
	VSUBPS Y5, Y13, Y5
	VSUBPS Y6, Y14, Y6
	VSUBPS Y7, Y15, Y7
	VMULPS Y0, Y0, Y0
	VMULPS Y1, Y1, Y1
	VMULPS Y2, Y2, Y2
	VMULPS Y3, Y3, Y3
	VMULPS Y4, Y4, Y4
	VMULPS Y5, Y5, Y5
	VMULPS Y6, Y6, Y6
	VMULPS Y7, Y7, Y7
	VADDPS Y4, Y0, Y0
	VADDPS Y5, Y1, Y1
	VADDPS Y6, Y2, Y2
	VADDPS Y7, Y3, Y3
	VADDPS Y2, Y0, Y0
	VADDPS Y3, Y1, Y1
	VADDPS Y1, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, R12
	ADDQ $32, DI
	SUBQ $8, CX
	JMP t8loop
t8done:
	VZEROUPPER
	RET
