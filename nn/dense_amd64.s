//go:build !purego

#include "textflag.h"

// func transposeAddReLUAVX2(t, b, skip, y *float32, n, out, n8, o8 int)
//
// For s < n8 and o < o8, multiples of 8 and both > 0, sets y[s·out+o] to
// relu(t[o·n+s] + b[o] + skip[s·out+o]), without skip if it is nil, with
// relu(v) = v with its sign bit's value cleared to 0 if set (nn.relu):
// each block of 8x8 values of t is loaded as eight rows, transposed in
// registers, and stored as eight rows of y. The additions are in Go's
// order, so that the values are those of the Go code bit for bit.
//
// Registers: DI t's row o0, SI y's column o0, DX b+o0, BX skip−y, R8
// the blocks of a row, R9 those left, R10 and R12 n·4 and 3·n·4, R11 and
// R13 out·4 and 3·out·4, AX and CX the block's t and y, R14 scratch.
TEXT ·transposeAddReLUAVX2(SB), NOSPLIT, $8-64
	MOVQ t+0(FP), DI
	MOVQ b+8(FP), DX
	MOVQ skip+16(FP), BX
	MOVQ y+24(FP), SI
	MOVQ n+32(FP), R10
	MOVQ out+40(FP), R11
	MOVQ n8+48(FP), R8
	MOVQ o8+56(FP), AX
	SHRQ $3, R8
	SHRQ $3, AX
	MOVQ AX, oblocks-8(SP)
	SUBQ SI, BX
	SHLQ $2, R10
	SHLQ $2, R11
	LEAQ (R10)(R10*2), R12
	LEAQ (R11)(R11*2), R13

oloop:
	MOVQ DI, AX
	MOVQ SI, CX
	MOVQ R8, R9

sloop:
	// Rows o0 to o0+7 of t, each the values of s0 to s0+7.
	VMOVUPS (AX), Y0
	VMOVUPS (AX)(R10*1), Y1
	VMOVUPS (AX)(R10*2), Y2
	VMOVUPS (AX)(R12*1), Y3
	LEAQ    (AX)(R10*4), R14
	VMOVUPS (R14), Y4
	VMOVUPS (R14)(R10*1), Y5
	VMOVUPS (R14)(R10*2), Y6
	VMOVUPS (R14)(R12*1), Y7

	// Transpose: Y8+k holds the values of s0+k for o0 to o0+7.
	VUNPCKLPS  Y1, Y0, Y8
	VUNPCKHPS  Y1, Y0, Y9
	VUNPCKLPS  Y3, Y2, Y10
	VUNPCKHPS  Y3, Y2, Y11
	VUNPCKLPS  Y5, Y4, Y12
	VUNPCKHPS  Y5, Y4, Y13
	VUNPCKLPS  Y7, Y6, Y14
	VUNPCKHPS  Y7, Y6, Y15
	VSHUFPS    $0x44, Y10, Y8, Y0
	VSHUFPS    $0xee, Y10, Y8, Y1
	VSHUFPS    $0x44, Y11, Y9, Y2
	VSHUFPS    $0xee, Y11, Y9, Y3
	VSHUFPS    $0x44, Y14, Y12, Y4
	VSHUFPS    $0xee, Y14, Y12, Y5
	VSHUFPS    $0x44, Y15, Y13, Y6
	VSHUFPS    $0xee, Y15, Y13, Y7
	VPERM2F128 $0x20, Y4, Y0, Y8
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15

	// v + b[o]
	VADDPS (DX), Y8, Y8
	VADDPS (DX), Y9, Y9
	VADDPS (DX), Y10, Y10
	VADDPS (DX), Y11, Y11
	VADDPS (DX), Y12, Y12
	VADDPS (DX), Y13, Y13
	VADDPS (DX), Y14, Y14
	VADDPS (DX), Y15, Y15

	// + skip[s·out+o]
	CMPQ   skip+16(FP), $0
	JEQ    relu
	LEAQ   (CX)(BX*1), R14
	VADDPS (R14), Y8, Y8
	VADDPS (R14)(R11*1), Y9, Y9
	VADDPS (R14)(R11*2), Y10, Y10
	VADDPS (R14)(R13*1), Y11, Y11
	LEAQ   (R14)(R11*4), R14
	VADDPS (R14), Y12, Y12
	VADDPS (R14)(R11*1), Y13, Y13
	VADDPS (R14)(R11*2), Y14, Y14
	VADDPS (R14)(R13*1), Y15, Y15

relu:
	// Clear the values whose sign bit is set.
	VPSRAD $31, Y8, Y0
	VPSRAD $31, Y9, Y1
	VPSRAD $31, Y10, Y2
	VPSRAD $31, Y11, Y3
	VPSRAD $31, Y12, Y4
	VPSRAD $31, Y13, Y5
	VPSRAD $31, Y14, Y6
	VPSRAD $31, Y15, Y7
	VPANDN Y8, Y0, Y8
	VPANDN Y9, Y1, Y9
	VPANDN Y10, Y2, Y10
	VPANDN Y11, Y3, Y11
	VPANDN Y12, Y4, Y12
	VPANDN Y13, Y5, Y13
	VPANDN Y14, Y6, Y14
	VPANDN Y15, Y7, Y15

	// Rows s0 to s0+7 of y, at column o0.
	VMOVUPS Y8, (CX)
	VMOVUPS Y9, (CX)(R11*1)
	VMOVUPS Y10, (CX)(R11*2)
	VMOVUPS Y11, (CX)(R13*1)
	LEAQ    (CX)(R11*4), CX
	VMOVUPS Y12, (CX)
	VMOVUPS Y13, (CX)(R11*1)
	VMOVUPS Y14, (CX)(R11*2)
	VMOVUPS Y15, (CX)(R13*1)
	LEAQ    (CX)(R11*4), CX

	ADDQ $32, AX
	DECQ R9
	JNE  sloop

	LEAQ (DI)(R10*8), DI
	ADDQ $32, SI
	ADDQ $32, DX
	DECQ oblocks-8(SP)
	JNE  oloop

	VZEROUPPER
	RET

// func addBiasReLUAVX2(t, b, skip, y *float32, rows, out, o8 int)
//
// For each of rows rows of out values and o < o8, a multiple of 8 > 0,
// sets y[s·out+o] to relu(t[s·out+o] + b[o] + skip[s·out+o]), without
// skip if it is nil, eight values at a time, in Go's order of the
// additions, as transposeAddReLUAVX2 does.
TEXT ·addBiasReLUAVX2(SB), NOSPLIT, $0-56
	MOVQ t+0(FP), SI
	MOVQ b+8(FP), DX
	MOVQ skip+16(FP), BX
	MOVQ y+24(FP), DI
	MOVQ rows+32(FP), R8
	MOVQ out+40(FP), R10
	MOVQ o8+48(FP), R9
	SHLQ $2, R10
	SHRQ $3, R9
	TESTQ BX, BX
	JNE  skiprow

row:
	XORQ AX, AX
	MOVQ R9, CX

loop:
	VMOVUPS (SI)(AX*1), Y0
	VADDPS  (DX)(AX*1), Y0, Y0
	VPSRAD  $31, Y0, Y1
	VPANDN  Y0, Y1, Y0
	VMOVUPS Y0, (DI)(AX*1)
	ADDQ    $32, AX
	DECQ    CX
	JNE     loop
	ADDQ    R10, SI
	ADDQ    R10, DI
	DECQ    R8
	JNE     row
	JMP     done

skiprow:
	XORQ AX, AX
	MOVQ R9, CX

skiploop:
	VMOVUPS (SI)(AX*1), Y0
	VADDPS  (DX)(AX*1), Y0, Y0
	VADDPS  (BX)(AX*1), Y0, Y0
	VPSRAD  $31, Y0, Y1
	VPANDN  Y0, Y1, Y0
	VMOVUPS Y0, (DI)(AX*1)
	ADDQ    $32, AX
	DECQ    CX
	JNE     skiploop
	ADDQ    R10, SI
	ADDQ    R10, BX
	ADDQ    R10, DI
	DECQ    R8
	JNE     skiprow

done:
	VZEROUPPER
	RET
