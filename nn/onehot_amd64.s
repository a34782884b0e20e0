//go:build !purego

#include "textflag.h"

// func addRowsAVX2(y, wt *float32, out, o8 int, idx *int32, k int)
//
// For i < k in turn and o < o8, a multiple of 8 at most out, adds
// wt[idx[i]·out+o] to y[o]: 64 values of y at a time, held in eight
// registers while the k rows are added, then 8 at a time; the additions
// are in addRowsGo's order, so that the values are its bit for bit.
//
// Registers: DI y's next values, SI wt's column of them, R8 out·4, R9
// the values left, R10 idx, R12 k, BX i, AX row i's address.
TEXT ·addRowsAVX2(SB), NOSPLIT, $0-48
	MOVQ y+0(FP), DI
	MOVQ wt+8(FP), SI
	MOVQ out+16(FP), R8
	MOVQ o8+24(FP), R9
	MOVQ idx+32(FP), R10
	MOVQ k+40(FP), R12
	SHLQ $2, R8

chunk64:
	CMPQ    R9, $64
	JLT     chunk8
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VMOVUPS 128(DI), Y4
	VMOVUPS 160(DI), Y5
	VMOVUPS 192(DI), Y6
	VMOVUPS 224(DI), Y7
	XORQ    BX, BX

rows64:
	MOVLQSX (R10)(BX*4), AX
	IMULQ   R8, AX
	ADDQ    SI, AX
	VADDPS  (AX), Y0, Y0
	VADDPS  32(AX), Y1, Y1
	VADDPS  64(AX), Y2, Y2
	VADDPS  96(AX), Y3, Y3
	VADDPS  128(AX), Y4, Y4
	VADDPS  160(AX), Y5, Y5
	VADDPS  192(AX), Y6, Y6
	VADDPS  224(AX), Y7, Y7
	INCQ    BX
	CMPQ    BX, R12
	JLT     rows64

	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	ADDQ    $256, DI
	ADDQ    $256, SI
	SUBQ    $64, R9
	JMP     chunk64

chunk8:
	TESTQ   R9, R9
	JEQ     done
	VMOVUPS (DI), Y0
	XORQ    BX, BX

rows8:
	MOVLQSX (R10)(BX*4), AX
	IMULQ   R8, AX
	ADDQ    SI, AX
	VADDPS  (AX), Y0, Y0
	INCQ    BX
	CMPQ    BX, R12
	JLT     rows8

	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	SUBQ    $8, R9
	JMP     chunk8

done:
	VZEROUPPER
	RET

// func addToRowsAVX2(dst, x *float32, out, o8 int, idx *int32, k int)
//
// For i < k in turn and o < o8, a multiple of 8 at most out, adds x[o]
// to dst[idx[i]·out+o]: 64 values of x at a time, held in eight
// registers while they are added to the k rows, then 8 at a time; each
// sum is addToRowsGo's, bit for bit.
//
// Registers: DI dst's column of the values, SI x's next values, R8
// out·4, R9 the values left, R10 idx, R12 k, BX i, AX row i's address.
TEXT ·addToRowsAVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ out+16(FP), R8
	MOVQ o8+24(FP), R9
	MOVQ idx+32(FP), R10
	MOVQ k+40(FP), R12
	SHLQ $2, R8

chunk64:
	CMPQ    R9, $64
	JLT     chunk8
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	VMOVUPS 128(SI), Y4
	VMOVUPS 160(SI), Y5
	VMOVUPS 192(SI), Y6
	VMOVUPS 224(SI), Y7
	XORQ    BX, BX

rows64:
	MOVLQSX (R10)(BX*4), AX
	IMULQ   R8, AX
	ADDQ    DI, AX
	VADDPS  (AX), Y0, Y8
	VADDPS  32(AX), Y1, Y9
	VADDPS  64(AX), Y2, Y10
	VADDPS  96(AX), Y3, Y11
	VADDPS  128(AX), Y4, Y12
	VADDPS  160(AX), Y5, Y13
	VADDPS  192(AX), Y6, Y14
	VADDPS  224(AX), Y7, Y15
	VMOVUPS Y8, (AX)
	VMOVUPS Y9, 32(AX)
	VMOVUPS Y10, 64(AX)
	VMOVUPS Y11, 96(AX)
	VMOVUPS Y12, 128(AX)
	VMOVUPS Y13, 160(AX)
	VMOVUPS Y14, 192(AX)
	VMOVUPS Y15, 224(AX)
	INCQ    BX
	CMPQ    BX, R12
	JLT     rows64

	ADDQ $256, DI
	ADDQ $256, SI
	SUBQ $64, R9
	JMP  chunk64

chunk8:
	TESTQ   R9, R9
	JEQ     done8
	VMOVUPS (SI), Y0
	XORQ    BX, BX

rows8:
	MOVLQSX (R10)(BX*4), AX
	IMULQ   R8, AX
	ADDQ    DI, AX
	VADDPS  (AX), Y0, Y8
	VMOVUPS Y8, (AX)
	INCQ    BX
	CMPQ    BX, R12
	JLT     rows8

	ADDQ $32, DI
	ADDQ $32, SI
	SUBQ $8, R9
	JMP  chunk8

done8:
	VZEROUPPER
	RET
