package main

import "strings"

// frame is one function of a sampled stack, named as the profiler named it, less decorations
// that differ between the two (Go's ".abi0" suffix on assembly symbols, a "_[k]" kernel mark).
type frame struct {
	name   string
	kernel bool // the function is kernel code: a kernel address (perf) or the unitrace kernel
}

// stack is a distinct call stack, leaf first, and how many samples had it.
type stack struct {
	frames []frame
	count  int
}

// profile is what either profiler recorded, reduced to what the comparison needs.
type profile struct {
	stacks []stack
	lost   int // samples known to be lost (not in stacks)
}

// cleanName drops what the two profilers add to the same Go symbol: the linker's ".abi0" on
// assembly functions (perf reads the ELF symbol table, which has it) and the folded format's
// "_[k]" mark on kernel frames.
func cleanName(s string) (name string, kernelMark bool) {
	s, kernelMark = strings.CutSuffix(s, "_[k]")
	s = strings.TrimSuffix(s, ".abi0")
	return s, kernelMark
}

// has reports whether any of the names is in the stack.
func (s *stack) has(names ...string) bool {
	for _, f := range s.frames {
		for _, n := range names {
			if f.name == n {
				return true
			}
		}
	}
	return false
}

// callerOf returns the function below the first frame named name (its caller as the profiler
// saw it), or "" when name is not in the stack or is its outermost frame.
func (s *stack) callerOf(name string) string {
	for i, f := range s.frames {
		if f.name == name {
			if i+1 < len(s.frames) {
				return s.frames[i+1].name
			}
			return ""
		}
	}
	return ""
}

// The workload's functions (examples/groundtruth/syscall.go).
const (
	fnWorkload  = "main.syscallWorkload"
	fnUserPhase = "main.userPhase"
	fnSpinLeaf  = "main.spinLeaf"
	fnSysPhase  = "main.sysPhase"
	fnFill      = "main.fill"
)

// shares are the comparison's numbers, each a count of samples out of total.
type shares struct {
	total        int // samples in the profile
	workload     int // main.syscallWorkload in the stack
	compute      int // main.userPhase or main.spinLeaf in the stack
	sys          int // main.sysPhase or main.fill in the stack
	sysKernel    int // of sys, those whose leaf is a kernel function
	userPhase    int // main.userPhase in the stack
	spinLeaf     int // main.spinLeaf in the stack
	spinByCaller int // of spinLeaf, those where main.userPhase is spinLeaf's caller
	foreign      int // frames of unitrace's kernel, arch or trace agent other than package initialisation
	pkgInit      int // frames of a unitrace package's initialisation (init functions, map initialisers)
}

// measure counts p's samples.
func measure(p *profile) shares {
	var s shares
	for i := range p.stacks {
		st := &p.stacks[i]
		n := st.count
		s.total += n
		if st.has(fnWorkload) {
			s.workload += n
		}
		if st.has(fnUserPhase, fnSpinLeaf) {
			s.compute += n
		}
		if st.has(fnSysPhase, fnFill) {
			s.sys += n
			if len(st.frames) > 0 && st.frames[0].kernel {
				s.sysKernel += n
			}
		}
		if st.has(fnUserPhase) {
			s.userPhase += n
		}
		if st.has(fnSpinLeaf) {
			s.spinLeaf += n
			if st.callerOf(fnSpinLeaf) == fnUserPhase {
				s.spinByCaller += n
			}
		}
		foreign, pkgInit := false, false
		for _, f := range st.frames {
			pkg, fn, ok := splitFunc(f.name)
			if !ok || (pkg != modulePath && !strings.HasPrefix(pkg, modulePath+"/")) {
				continue
			}
			switch {
			case fn == "init" || strings.HasPrefix(fn, "init.") || strings.HasPrefix(fn, "map.init."):
				pkgInit = true
			case strings.HasPrefix(pkg, modulePath+"/kernel") || strings.HasPrefix(pkg, modulePath+"/arch/") ||
				pkg == modulePath+"/trace/agent":
				foreign = true
			}
		}
		if foreign {
			s.foreign += n
		}
		if pkgInit {
			s.pkgInit += n
		}
	}
	return s
}

const modulePath = "github.com/unitrace/unitrace"

// splitFunc splits a Go function name into its package path and the rest:
// "github.com/u/u/trace/wire.map.init.0" is "github.com/u/u/trace/wire" and "map.init.0".
func splitFunc(name string) (pkg, fn string, ok bool) {
	slash := strings.LastIndexByte(name, '/')
	dot := strings.IndexByte(name[slash+1:], '.')
	if dot < 0 {
		return "", "", false
	}
	return name[:slash+1+dot], name[slash+2+dot:], true
}

// unitraceKernel reports whether a function name from a unitrace image is the kernel's: its
// kernel/, arch/ and boot/ packages.
func unitraceKernel(name string) bool {
	for _, p := range []string{"/kernel.", "/kernel/", "/arch/", "/boot/"} {
		if strings.HasPrefix(name, modulePath+p) {
			return true
		}
	}
	return false
}
