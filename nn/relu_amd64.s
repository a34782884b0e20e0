//go:build !purego

#include "textflag.h"

// The bias and ReLU pass with AVX2, eight values at a time. VMAXPS takes
// v as its second source operand, Intel's order, so that a NaN v passes
// through (MAXPS returns the second operand when one is a NaN), as it does
// in the pure Go version.

// func addReLUAVX2(x []float32, b float32)
TEXT ·addReLUAVX2(SB), NOSPLIT, $0-28
	MOVQ         x_base+0(FP), DI
	MOVQ         x_len+8(FP), CX
	VBROADCASTSS b+24(FP), Y1
	VXORPS       Y2, Y2, Y2

loop8:
	CMPQ    CX, $8
	JLT     tail
	VADDPS  (DI), Y1, Y0
	VMAXPS  Y0, Y2, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     loop8

tail:
	TESTQ  CX, CX
	JEQ    done
	VMOVSS (DI), X0
	VADDSS X1, X0, X0
	VMAXSS X0, X2, X0
	VMOVSS X0, (DI)
	ADDQ   $4, DI
	DECQ   CX
	JMP    tail

done:
	VZEROUPPER
	RET

// func reluBackwardAVX2(y, dy []float32)
//
// Zeroes dy where y > 0 is false (y ≤ 0 or NaN), eight values at a time;
// len(dy) ≥ len(y), and the values past the last multiple of eight are
// left to the caller.
TEXT ·reluBackwardAVX2(SB), NOSPLIT, $0-48
	MOVQ   y_base+0(FP), SI
	MOVQ   y_len+8(FP), CX
	MOVQ   dy_base+24(FP), DI
	VXORPS Y2, Y2, Y2
	SHRQ   $3, CX
	JEQ    done

loop:
	VMOVUPS (SI), Y0
	VCMPPS  $0x1e, Y2, Y0, Y1 // y > 0, ordered, quiet
	VANDPS  (DI), Y1, Y1
	VMOVUPS Y1, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNE     loop

done:
	VZEROUPPER
	RET
