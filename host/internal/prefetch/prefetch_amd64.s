#include "textflag.h"

// func Lines4(a, b, c, d uintptr)
TEXT ·Lines4(SB), NOSPLIT|NOFRAME, $0-32
	MOVQ a+0(FP), AX
	PREFETCHT0 (AX)
	MOVQ b+8(FP), AX
	PREFETCHT0 (AX)
	MOVQ c+16(FP), AX
	PREFETCHT0 (AX)
	MOVQ d+24(FP), AX
	PREFETCHT0 (AX)
	RET

// func Line(a uintptr)
TEXT ·Line(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ a+0(FP), AX
	PREFETCHT0 (AX)
	RET
