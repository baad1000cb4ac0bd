package main

func empty()
func calls10()
func branches10()
func rdtsc2()
func stiCli()
func cliOnly()
func fsBase()
func fsBaseMSR()
func cr8()
func xmm16()
func iretSelf()
func stiJump()
func popfJump()
func getppid()

var primitives = []primitive{
	{"calls10", "ten calls of an empty function and their returns", calls10},
	{"branches10", "ten compare-and-branch pairs, not taken", branches10},
	{"rdtsc2", "two RDTSC", rdtsc2},
	{"sti-cli", "STI then CLI (flags saved and restored around them)", stiCli},
	{"cli", "CLI (flags saved and restored around it)", cliOnly},
	{"fsbase", "RDFSBASE then WRFSBASE", fsBase},
	{"fsbase-msr", "RDMSR then WRMSR of IA32_FS_BASE", fsBaseMSR},
	{"cr8", "read and write CR8 (the local APIC's task priority)", cr8},
	{"xmm16", "store and load XMM0-XMM15", xmm16},
	{"iretq", "IRETQ to the next instruction, same privilege", iretSelf},
	{"sti-jump", "POPFQ with IF clear, STI, JMP through a register", stiJump},
	{"popf-jump", "POPFQ, JMP through a register", popfJump},
	{"getppid", "a system call's round trip (getppid, served without the kernel lock)", getppid},
}
