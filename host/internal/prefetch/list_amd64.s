#include "textflag.h"

// func List(addrs []uintptr)
TEXT ·List(SB), NOSPLIT|NOFRAME, $0-24
	MOVQ addrs_base+0(FP), SI
	MOVQ addrs_len+8(FP), CX
	TESTQ CX, CX
	JZ done
loop:
	MOVQ (SI), AX
	PREFETCHT0 (AX)
	ADDQ $8, SI
	DECQ CX
	JNZ loop
done:
	RET
