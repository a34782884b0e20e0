//go:build !purego

#include "textflag.h"

// lanes holds eight all-ones int32 then eight zeros: the eight values at
// byte offset 4·(8-r) are the mask of the first r lanes.
DATA lanes<>+0(SB)/8, $0xffffffffffffffff
DATA lanes<>+8(SB)/8, $0xffffffffffffffff
DATA lanes<>+16(SB)/8, $0xffffffffffffffff
DATA lanes<>+24(SB)/8, $0xffffffffffffffff
DATA lanes<>+32(SB)/8, $0
DATA lanes<>+40(SB)/8, $0
DATA lanes<>+48(SB)/8, $0
DATA lanes<>+56(SB)/8, $0
GLOBL lanes<>(SB), RODATA|NOPTR, $64

// RUNS loads the arguments of gatherAVX2 and scatterAddAVX2: DI dst, SI
// src, R8 n, R9 rows, R10 the 8-value chunks of a run, R11 and R12 the
// strides in bytes, BX the bytes of a run's masked tail and Y15 its mask.
#define RUNS \
	MOVQ dst+0(FP), DI; \
	MOVQ src+8(FP), SI; \
	MOVQ n+16(FP), R8; \
	MOVQ rows+24(FP), R9; \
	MOVQ run+32(FP), R10; \
	MOVQ rowStride+40(FP), R11; \
	MOVQ sampleStride+48(FP), R12; \
	SHLQ $2, R11; \
	SHLQ $2, R12; \
	MOVQ R10, BX; \
	ANDQ $7, BX; \
	LEAQ lanes<>(SB), AX; \
	MOVQ $8, DX; \
	SUBQ BX, DX; \
	VMOVDQU (AX)(DX*4), Y15; \
	SHLQ $2, BX; \
	SHRQ $3, R10

// func gatherAVX2(dst, src *float32, n, rows, run, rowStride, sampleStride, srcLen int)
//
// For s < n and r < rows, copies the run values at src[s·sampleStride +
// r·rowStride] to dst[(s·rows+r)·run]: eight values at a time, the last
// run%8 as eight too where that stays within src (srcLen values) and
// within the runs to come in dst, which overwrite what lies past the
// run, and otherwise through a mask; nothing outside src and the runs is
// read or written. run > 0. Masked loads and stores are slow on some
// CPUs (microcoded on AMD's).
TEXT ·gatherAVX2(SB), NOSPLIT, $8-64
	RUNS
	// DX: the end of dst, n·rows·(32·chunks + the tail's bytes) after it;
	// srcend: the end of src.
	MOVQ  R10, AX
	SHLQ  $5, AX
	ADDQ  BX, AX
	IMULQ R9, AX
	IMULQ R8, AX
	LEAQ  (DI)(AX*1), DX
	MOVQ  srcLen+56(FP), AX
	LEAQ  (SI)(AX*4), AX
	MOVQ  AX, srcend-8(SP)

sample:
	TESTQ R8, R8
	JEQ   done
	MOVQ  SI, R13 // the row's first value
	MOVQ  R9, R14 // rows left

row:
	TESTQ R14, R14
	JEQ   nextsample
	MOVQ  R13, AX
	MOVQ  R10, CX

chunk:
	TESTQ   CX, CX
	JEQ     tail
	VMOVUPS (AX), Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, AX
	ADDQ    $32, DI
	DECQ    CX
	JMP     chunk

tail:
	TESTQ      BX, BX
	JEQ        nextrow
	LEAQ       32(DI), CX
	CMPQ       CX, DX
	JHI        last
	LEAQ       32(AX), CX
	CMPQ       CX, srcend-8(SP)
	JHI        maskedload
	VMOVUPS    (AX), Y0
	VMOVUPS    Y0, (DI)
	ADDQ       BX, DI
	JMP        nextrow

maskedload:
	VMASKMOVPS (AX), Y15, Y0
	VMOVUPS    Y0, (DI)
	ADDQ       BX, DI
	JMP        nextrow

last:
	VMASKMOVPS (AX), Y15, Y0
	VMASKMOVPS Y0, Y15, (DI)
	ADDQ       BX, DI

nextrow:
	ADDQ R11, R13
	DECQ R14
	JMP  row

nextsample:
	ADDQ R12, SI
	DECQ R8
	JMP  sample

done:
	VZEROUPPER
	RET

// func scatterAddAVX2(dst, src *float32, n, rows, run, rowStride, sampleStride int)
//
// For s < n and r < rows, adds the run values at src[(s·rows+r)·run] to
// those at dst[s·sampleStride + r·rowStride], as gatherAVX2 in reverse.
TEXT ·scatterAddAVX2(SB), NOSPLIT, $0-56
	RUNS

sample:
	TESTQ R8, R8
	JEQ   done
	MOVQ  DI, R13
	MOVQ  R9, R14

row:
	TESTQ R14, R14
	JEQ   nextsample
	MOVQ  R13, AX
	MOVQ  R10, CX

chunk:
	TESTQ   CX, CX
	JEQ     tail
	VMOVUPS (AX), Y0
	VADDPS  (SI), Y0, Y0
	VMOVUPS Y0, (AX)
	ADDQ    $32, AX
	ADDQ    $32, SI
	DECQ    CX
	JMP     chunk

tail:
	TESTQ      BX, BX
	JEQ        nextrow
	VMASKMOVPS (AX), Y15, Y0
	VMASKMOVPS (SI), Y15, Y1
	VADDPS     Y1, Y0, Y0
	VMASKMOVPS Y0, Y15, (AX)
	ADDQ       BX, SI

nextrow:
	ADDQ R11, R13
	DECQ R14
	JMP  row

nextsample:
	ADDQ R12, DI
	DECQ R8
	JMP  sample

done:
	VZEROUPPER
	RET
