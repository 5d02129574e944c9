#include "textflag.h"

// func List(addrs []uintptr)
TEXT ·List(SB), NOSPLIT|NOFRAME, $0-24
	MOVD addrs_base+0(FP), R1
	MOVD addrs_len+8(FP), R2
	CBZ R2, done
loop:
	MOVD (R1), R0
	PRFM (R0), PLDL1KEEP
	ADD $8, R1
	SUB $1, R2
	CBNZ R2, loop
done:
	RET
