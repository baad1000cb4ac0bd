#include "textflag.h"

// func start()
TEXT ·start(SB),NOSPLIT|NOFRAME,$0
	B	_rt0_arm64_linux(SB)
