package main

func empty()
func calls10()
func branches10()
func counter2()
func maskUnmask()
func vec32()
func sysregs()
func getppid()

var primitives = []primitive{
	{"calls10", "ten calls of an empty function and their returns", calls10},
	{"branches10", "ten compare-and-branch pairs, not taken", branches10},
	{"counter2", "two reads of CNTVCT_EL0", counter2},
	{"mask", "mask and unmask IRQs (DAIF)", maskUnmask},
	{"vec32", "store and load V0-V31", vec32},
	{"sysregs", "the trap stub's system registers: read ELR, SPSR, ESR, FAR, TPIDR, FPCR, FPSR; write back ELR, SPSR, FPCR, FPSR", sysregs},
	{"getppid", "a system call's round trip (getppid, served without the kernel lock)", getppid},
}
