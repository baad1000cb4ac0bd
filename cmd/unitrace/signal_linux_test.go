package main

import (
	"syscall"
	"testing"
)

// TestSignalNamesAreLinux checks signalNames against the host's Linux numbering (package
// syscall), which the guest's kernel shares on amd64 and arm64.
func TestSignalNamesAreLinux(t *testing.T) {
	linux := map[string]syscall.Signal{
		"HUP": syscall.SIGHUP, "INT": syscall.SIGINT, "QUIT": syscall.SIGQUIT, "ILL": syscall.SIGILL,
		"TRAP": syscall.SIGTRAP, "ABRT": syscall.SIGABRT, "IOT": syscall.SIGIOT, "BUS": syscall.SIGBUS,
		"FPE": syscall.SIGFPE, "KILL": syscall.SIGKILL, "USR1": syscall.SIGUSR1, "SEGV": syscall.SIGSEGV,
		"USR2": syscall.SIGUSR2, "PIPE": syscall.SIGPIPE, "ALRM": syscall.SIGALRM, "TERM": syscall.SIGTERM,
		"STKFLT": syscall.SIGSTKFLT, "CHLD": syscall.SIGCHLD, "CLD": syscall.SIGCLD, "CONT": syscall.SIGCONT,
		"STOP": syscall.SIGSTOP, "TSTP": syscall.SIGTSTP, "TTIN": syscall.SIGTTIN, "TTOU": syscall.SIGTTOU,
		"URG": syscall.SIGURG, "XCPU": syscall.SIGXCPU, "XFSZ": syscall.SIGXFSZ, "VTALRM": syscall.SIGVTALRM,
		"PROF": syscall.SIGPROF, "WINCH": syscall.SIGWINCH, "IO": syscall.SIGIO, "POLL": syscall.SIGPOLL,
		"PWR": syscall.SIGPWR, "SYS": syscall.SIGSYS,
	}
	if len(linux) != len(signalNames) {
		t.Errorf("%d names, Linux has %d", len(signalNames), len(linux))
	}
	for name, n := range signalNames {
		if want, ok := linux[name]; !ok || int(want) != n {
			t.Errorf("%s = %d, Linux says %d (%v)", name, n, int(want), ok)
		}
	}
}
