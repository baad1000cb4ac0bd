#include "textflag.h"

// func start()
TEXT ·start(SB),NOSPLIT|NOFRAME,$0
	JMP	_rt0_amd64_linux(SB)
