package vdso

// Layout is how one architecture's vDSO is made: its ELF machine, the symbol version and names
// the Go runtime looks the functions up by, the kernel's symbols whose machine code becomes
// each function, and how the code's parameter address is patched.
type Layout struct {
	Machine uint16
	Version string
	Funcs   [MaxFuncs]LayoutFunc
	NFuncs  int
	Patch   func(code []byte, addr uint64) int
}

// LayoutFunc is one exported function: its name in the vDSO and the kernel's symbol for its
// code (arch/*/vdso_*.s: assembly, so the linker names it with its ABI, .abi0).
type LayoutFunc struct {
	Name, Symbol string
}

// LayoutFor is the layout for goarch ("amd64" or "arm64"). The names and versions are those the
// Go runtime asks for (runtime/vdso_linux_amd64.go, runtime/vdso_linux_arm64.go).
func LayoutFor(goarch string) (Layout, bool) {
	switch goarch {
	case "amd64":
		return Layout{
			Machine: MachineAMD64,
			Version: "LINUX_2.6",
			Funcs: [MaxFuncs]LayoutFunc{
				{"__vdso_clock_gettime", "github.com/unitrace/unitrace/arch/amd64.vdsoClockGettime.abi0"},
				{"__vdso_gettimeofday", "github.com/unitrace/unitrace/arch/amd64.vdsoGettimeofday.abi0"},
			},
			NFuncs: 2,
			Patch:  Patch,
		}, true
	case "arm64":
		return Layout{
			Machine: MachineARM64,
			Version: "LINUX_2.6.39",
			Funcs: [MaxFuncs]LayoutFunc{
				{"__kernel_clock_gettime", "github.com/unitrace/unitrace/arch/arm64.vdsoClockGettime.abi0"},
			},
			NFuncs: 1,
			Patch:  PatchMoves,
		}, true
	}
	return Layout{}, false
}
