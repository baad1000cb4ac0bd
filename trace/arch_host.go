//go:build unitrace_host && amd64

package trace

import "github.com/unitrace/unitrace/arch/amd64"

// The emit path's machine hooks for a plain Linux process, so that `go test -tags unitrace_host
// -bench Emit` measures the real emit path on the host. Only two of the guest's hooks fault
// outside ring 0 and change here:
//
//   - CPU index: the guest reads it through GS, which a Linux process does not set up; the host
//     process is one "CPU", 0.
//   - IRQ masking: CLI/STI are privileged; here they are no-ops. On the host an emit can be
//     preempted between Reserve and Commit, which is harmless for a benchmark that emits from
//     one goroutine, and which is why nothing but that benchmark should use this build.
//
// The others run the guest's own instructions, which are legal in user mode: RDTSC for the
// tick (unless the host kernel sets CR4.TSD, which Linux does not by default), the frame
// pointer from RBP, the stack bounds from the g at -8(FS) (where the Go runtime keeps it on
// linux/amd64 for an internally linked binary, which `go test` with CGO_ENABLED=0 is), and the
// text bounds from the linker's runtime.text/runtime.etext. So the host number differs from
// the guest's by PUSHF/CLI/STI and one GS-relative load, and by running natively instead of
// under QEMU.
//
// The file is amd64-only because it reuses arch/amd64's instruction wrappers; an arm64 host
// build would need its own arch_host_arm64.go.

//go:nosplit
func cpuIndex() int { return 0 }

//go:nosplit
func ticks() uint64 { return amd64.Rdtsc() }

//go:nosplit
func irqSave() uint64 { return 0 }

//go:nosplit
func irqRestore(uint64) {}
