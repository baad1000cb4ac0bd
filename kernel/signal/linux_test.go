package signal

import (
	"syscall"
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
)

var arches = []string{"amd64", "arm64"}

// TestRuntimeConstants checks the numbers the Go runtime also defines against its definitions
// for both arches.
func TestRuntimeConstants(t *testing.T) {
	both := []struct {
		name string
		got  int64
	}{
		{"_SIGILL", SIGILL}, {"_SIGTRAP", SIGTRAP}, {"_SIGBUS", SIGBUS}, {"_SIGFPE", SIGFPE},
		{"_SIGKILL", SIGKILL}, {"_SIGSEGV", SIGSEGV}, {"_SIGCHLD", SIGCHLD}, {"_SIGCONT", SIGCONT},
		{"_SIGSTOP", SIGSTOP}, {"_SIGURG", SIGURG}, {"_SIGWINCH", SIGWINCH}, {"_SIGRTMIN", SIGRTMIN},
		{"_SIGUSR1", SIGUSR1}, {"_SIGALRM", SIGALRM}, {"_SIGVTALRM", SIGVTALRM}, {"_SIGPROF", SIGPROF},
		{"_NSIG", NSIG + 1}, // the runtime counts signal 0
		{"_SIG_DFL", SIG_DFL}, {"_SIG_IGN", SIG_IGN},
		{"_SA_SIGINFO", SA_SIGINFO}, {"_SA_ONSTACK", SA_ONSTACK}, {"_SA_RESTART", SA_RESTART},
		{"_SIG_BLOCK", SIG_BLOCK}, {"_SIG_UNBLOCK", SIG_UNBLOCK}, {"_SIG_SETMASK", SIG_SETMASK},
		{"_SS_DISABLE", SS_DISABLE},
		{"_SI_USER", SI_USER}, {"_SI_KERNEL", SI_KERNEL}, {"_SI_TKILL", SI_TKILL},
		{"_SI_TIMER", SI_TIMER},
		{"_SEGV_MAPERR", SEGV_MAPERR}, {"_SEGV_ACCERR", SEGV_ACCERR},
		{"_FPE_INTDIV", FPE_INTDIV}, {"_BUS_ADRALN", BUS_ADRALN},
		{"_si_max_size", InfoSize},
	}
	for _, arch := range arches {
		d := loadRuntimeDefs(t, arch)
		for _, c := range both {
			if want := d.constant(t, c.name); c.got != want {
				t.Errorf("%s: %s is %d here, %d in the Go runtime", arch, c.name, c.got, want)
			}
		}
	}
	// The runtime sets SA_RESTORER only on amd64 (its arm64 value is 0, "only used on intel").
	if want := loadRuntimeDefs(t, "amd64").constant(t, "_SA_RESTORER"); SA_RESTORER != want {
		t.Errorf("SA_RESTORER = %#x, the Go runtime's amd64 value is %#x", SA_RESTORER, want)
	}
}

// TestPinnedConstants pins what the Go runtime does not define, each against the Linux header
// named at its definition.
func TestPinnedConstants(t *testing.T) {
	pins := []struct {
		name      string
		got, want int64
	}{
		{"SA_RESTORER (arch/arm64/include/uapi/asm/signal.h)", SA_RESTORER, 0x04000000},
		{"SA_NODEFER", SA_NODEFER, 0x40000000},
		{"SA_RESETHAND", SA_RESETHAND, 0x80000000},
		{"SS_ONSTACK", SS_ONSTACK, 1},
		{"SS_AUTODISARM", SS_AUTODISARM, 1 << 31},
		{"MINSIGSTKSZ (x86)", MINSIGSTKSZ, 2048},
		{"ILL_ILLOPN", ILL_ILLOPN, 2},
		{"TRAP_BRKPT", TRAP_BRKPT, 1},
		{"sizeof(sigset_t)", SigsetSize, 8},
		{"sizeof(struct sigaction)", ActionSize, 32},
		{"sizeof(stack_t)", StackSize, 24},
	}
	for _, p := range pins {
		if p.got != p.want {
			t.Errorf("%s = %#x, want %#x", p.name, p.got, p.want)
		}
	}
}

// TestErrnos checks the error numbers against the host's syscall package (Linux's
// asm-generic/errno-base.h values, the same on both arches).
func TestErrnos(t *testing.T) {
	for _, c := range []struct {
		got  int
		want syscall.Errno
	}{{abi.EPERM, syscall.EPERM}, {abi.ENOMEM, syscall.ENOMEM}, {abi.EINVAL, syscall.EINVAL}} {
		if c.got != int(c.want) {
			t.Errorf("%v is %d here, %d in package syscall", c.want, c.got, int(c.want))
		}
	}
}
