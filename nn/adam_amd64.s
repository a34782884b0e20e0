//go:build !purego

#include "textflag.h"

// The Adam update with AVX2, eight values at a time, in the order of
// operations of adamGo (multiplications and additions apart, no fused
// multiply-add), so that both give the same values.

// func adamAVX2(w, g, m, v []float32, k *adamConsts)
TEXT ·adamAVX2(SB), NOSPLIT, $0-104
	MOVQ w_base+0(FP), DI
	MOVQ w_len+8(FP), CX
	MOVQ g_base+24(FP), SI
	MOVQ m_base+48(FP), R8
	MOVQ v_base+72(FP), R9
	MOVQ k+96(FP), AX
	VBROADCASTSS 0(AX), Y9   // decay
	VBROADCASTSS 4(AX), Y10  // b1
	VBROADCASTSS 8(AX), Y11  // c1
	VBROADCASTSS 12(AX), Y12 // b2
	VBROADCASTSS 16(AX), Y13 // c2
	VBROADCASTSS 20(AX), Y14 // step
	VBROADCASTSS 24(AX), Y15 // eps
	SHRQ $3, CX
	JEQ  done

loop:
	VMOVUPS (DI), Y0
	VMULPS  Y0, Y9, Y2        // decay·w
	VADDPS  (SI), Y2, Y1      // g + decay·w
	VMULPS  (R8), Y10, Y3     // b1·m
	VMULPS  Y1, Y11, Y4       // c1·g
	VADDPS  Y4, Y3, Y3        // m'
	VMULPS  Y1, Y13, Y5       // c2·g
	VMULPS  Y1, Y5, Y5        // c2·g·g
	VMULPS  (R9), Y12, Y6     // b2·v
	VADDPS  Y5, Y6, Y6        // v'
	VMOVUPS Y3, (R8)
	VMOVUPS Y6, (R9)
	VSQRTPS Y6, Y7
	VADDPS  Y15, Y7, Y7       // sqrt(v') + eps
	VMULPS  Y3, Y14, Y8       // step·m'
	VDIVPS  Y7, Y8, Y8
	VSUBPS  Y8, Y0, Y0
	VMOVUPS Y0, (DI)
	VXORPS  Y4, Y4, Y4
	VMOVUPS Y4, (SI)          // clear the gradient
	ADDQ    $32, DI
	ADDQ    $32, SI
	ADDQ    $32, R8
	ADDQ    $32, R9
	DECQ    CX
	JNE     loop

done:
	VZEROUPPER
	RET
