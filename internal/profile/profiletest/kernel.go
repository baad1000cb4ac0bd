package profiletest

import (
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

// KernelScenario is a recording of the amd64 program whose samples cross the kernel boundary
// as the guest's sampler records them when it interrupts the kernel: the kernel's exact pc
// and chain, StackMarkThread, the thread's exact pc and chain, with the thread's registers
// and the weights in the appended slots. Its threads wait in runtime.futex, whose SYSCALL
// entered prog/kernel.syscall, which called the frameless prog/kernel.lockKernel.
type KernelScenario struct {
	Prog *Program
	Rec  Recording
	// Want maps a folded stack (root first, both leaf fixes applied, kernel frames with the
	// "_[k]" suffix) to its weighted samples; WantFoldKernel is the same with the kernel's
	// frames folded into the system call that entered them.
	Want, WantFoldKernel map[string]int
	// Split is, per CPU, the weighted samples in the kernel, in threads and idle (Idle
	// counts the samples that the views hide by default).
	Split map[uint16][3]int
	// Records and Deadlines count the samples the views show: records, and the deadlines
	// they stand for.
	Records, Deadlines int
	// ThreadFixed counts the samples whose thread pc the leaf fix changes, ThreadNoRegs those
	// whose record lacks the thread's registers.
	ThreadFixed, ThreadNoRegs int
	// LockPCs and FutexPC are the exact pcs of the kernel's leaf (weighted) and the thread pc
	// every kernel sample entered from.
	LockPCs map[uint64]int
	FutexPC uint64
}

// Counts of the kernel scenario's samples.
const (
	KLock       = 12 // CPU 0: lockKernel under syscall, in a futex system call
	KWeighted   = 3  // CPU 1: the same, each standing for KWeight deadlines
	KWeight     = 4
	KNested     = 2 // CPU 0: a trap nested in the system call's handler (StackMarkKernel)
	KNoRegs     = 1 // CPU 0: crossed, but the record has no thread registers
	KThreadLeaf = 10
	KIdle       = 2 // CPU 1
)

// Folded stacks of the kernel scenario.
const (
	KStackLock   = "runtime.notesleep;runtime.futexsleep;runtime.futex;prog/kernel.syscall_[k];prog/kernel.lockKernel_[k]"
	KStackNested = "runtime.notesleep;runtime.futexsleep;runtime.futex;prog/kernel.Trap_[k];prog/kernel.syscall_[k];prog/kernel.lockKernel_[k]"
	KStackNoRegs = "runtime.notesleep;runtime.futex;prog/kernel.syscall_[k];prog/kernel.lockKernel_[k]"
	KStackLeaf   = "main.main;main.outer;main.mid;main.leaf"
	KStackFutex  = "runtime.notesleep;runtime.futexsleep;runtime.futex"
)

// NewKernelScenario builds the kernel scenario for an amd64 build of the program.
func NewKernelScenario(p *Program) *KernelScenario {
	if p.Arch != "amd64" {
		panic("profiletest: the kernel scenario is for amd64")
	}
	raSyscallLock := p.ReturnAddress("prog/kernel.syscall", "prog/kernel.lockKernel")
	raTrapSyscall := p.ReturnAddress("prog/kernel.Trap", "prog/kernel.syscall")
	raFutexsleepFutex := p.ReturnAddress("runtime.futexsleep", "runtime.futex")
	raNotesleepFutexsleep := p.ReturnAddress("runtime.notesleep", "runtime.futexsleep")
	sys := p.Find("runtime.futex", "SYSCALL")
	futexPC := sys.PC + uint64(sys.Len) // where the system call returns to

	ks := &KernelScenario{Prog: p, Want: map[string]int{}, WantFoldKernel: map[string]int{},
		Split: map[uint16][3]int{}, LockPCs: map[uint64]int{}, FutexPC: futexPC}
	ks.Rec = Recording{Image: p.Path, BuildID: BuildID, Accel: "kvm", Arch: wire.ArchAMD64}
	ns := uint64(1_000_000)
	add := func(cpu uint16, tid uint32, s Sample, want, folded string) {
		s.CPU, s.TID, s.Ns = cpu, tid, ns
		ns += 1_000_000
		ks.Rec.Samples = append(ks.Rec.Samples, s)
		w := int(max(s.Weight, 1))
		split := ks.Split[cpu]
		defer func() { ks.Split[cpu] = split }()
		if s.Idle {
			split[2] += w
			return
		}
		ks.Records++
		ks.Deadlines += w
		ks.Want[want] += w
		ks.WantFoldKernel[folded] += w
		if s.Kind == record.StackInterrupt {
			split[0] += w
			ks.LockPCs[s.Stack[0]] += w
		} else {
			split[1] += w
		}
	}
	const kernelSP, threadSP = 0xffff_8000_0010_0f00, 0xc000050f00
	thread := func(s Sample) Sample {
		s.Kind, s.ThreadKind = record.StackInterrupt, record.StackGoroutine
		s.ThreadSP, s.ThreadFP, s.ThreadW0, s.ThreadW1 = threadSP, threadSP+0x40, raFutexsleepFutex, 0x55
		return s
	}
	lock := p.Code("prog/kernel.lockKernel")
	for i := range KLock + KWeighted {
		s := thread(Sample{SP: kernelSP, FP: kernelSP + 0x20, W0: raSyscallLock, W1: 0x66,
			Stack: []uint64{lock[i%len(lock)].PC, record.StackMarkThread, futexPC, raNotesleepFutexsleep}})
		cpu, tid := uint16(0), uint32(1)
		if i >= KLock {
			cpu, tid, s.Weight = 1, 3, KWeight
		}
		ks.ThreadFixed++
		add(cpu, tid, s, KStackLock, KStackFutex)
	}
	// A timer's trap taken while the system call's handler ran: the timer handler's leaf,
	// the handler it interrupted (exact, then its chain), then the thread.
	call := p.Find("prog/kernel.syscall", "CALL")
	for range KNested {
		s := thread(Sample{SP: kernelSP - 0x100, FP: kernelSP, Stack: []uint64{lock[0].PC, record.StackMarkKernel,
			call.PC, raTrapSyscall, record.StackMarkThread, futexPC, raNotesleepFutexsleep}})
		ks.ThreadFixed++
		add(0, 1, s, KStackNested, KStackFutex)
	}
	for range KNoRegs {
		s := Sample{SP: kernelSP, FP: kernelSP + 0x20, W0: raSyscallLock, Kind: record.StackInterrupt,
			Stack: []uint64{lock[1].PC, record.StackMarkThread, futexPC, raNotesleepFutexsleep}}
		ks.ThreadNoRegs++
		add(0, 1, s, KStackNoRegs, "runtime.notesleep;runtime.futex")
	}
	// Ordinary samples of a thread, in the format older recordings have.
	raMidLeaf := p.ReturnAddress("main.mid", "main.leaf")
	raOuterMid := p.ReturnAddress("main.outer", "main.mid")
	raMainOuter := p.ReturnAddress("main.main", "main.outer")
	leaf := p.Code("main.leaf")
	for i := range KThreadLeaf {
		add(0, 1, Sample{SP: threadSP - 0x80, FP: threadSP - 0x60, W0: raMidLeaf, Stack: []uint64{leaf[i%len(leaf)].PC, raOuterMid, raMainOuter}},
			KStackLeaf, KStackLeaf)
	}
	for range KIdle {
		add(1, 0, Sample{Idle: true, Kind: record.StackKernel, SP: kernelSP}, "", "")
	}
	return ks
}
