package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/unitrace/unitrace/trace/ctl"
)

const signalDoc = `Send the signal SIG to the program in a running guest, as kill(1) would
on Linux: a process-directed signal from the guest's trace agent, taken by
a thread that does not block it, so the program's os/signal handlers run,
or the Go runtime's default (SIGQUIT: every goroutine's stack on the
console, exit status 2). SIG is a number (1..64) or a name with or without
SIG (INT, SIGINT, QUIT, TERM, USR1, ...; Linux's numbering). -ctl is the
socket of "unitrace run -ctl SOCK", or DIR/ctl.sock of "unitrace run
-sockets DIR" (which serves one client at a time). The command waits for
the guest's reply: exit status 0 once the guest has taken the signal, 1 when
it refused or did not answer within -timeout.
`

var signalCommand = command{
	name:     "signal",
	synopsis: "-ctl SOCK [-timeout D] SIG",
	summary:  "send a signal to the program in a running guest (run -ctl SOCK, or run -sockets DIR)",
	doc:      signalDoc,
	setup:    signalSetup,
}

func signalSetup(fs *flag.FlagSet) func(std stdio, args []string) error {
	ctlPath := fs.String("ctl", "", "socket of the guest's control port")
	timeout := fs.Duration("timeout", 30*time.Second, "give up when the guest has not answered by then")
	return func(std stdio, args []string) error {
		if err := fs.Parse(args); err != nil {
			return flagError(err)
		}
		if fs.NArg() != 1 || *ctlPath == "" {
			return usageError{"want -ctl SOCK and one SIG"}
		}
		if *timeout <= 0 {
			return usageError{"-timeout must be positive"}
		}
		sig, err := parseSignal(fs.Arg(0))
		if err != nil {
			return usageError{err.Error()}
		}
		reply, err := askGuest(*ctlPath, ctl.Command{Op: ctl.OpSignal, Has: ctl.HasSig, Sig: uint8(sig)}, *timeout)
		if err != nil {
			return err
		}
		return replyError(reply)
	}
}

// replyError is nil for an ok reply, else the guest's refusal.
func replyError(reply []byte) error {
	var r struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(reply, &r); err != nil {
		return fmt.Errorf("the guest's reply %q: %w", reply, err)
	}
	if !r.OK {
		return fmt.Errorf("the guest refused: %s", r.Error)
	}
	return nil
}

// signalNames are Linux's signal numbers 1..31, which amd64 and arm64 share
// (arch/x86/include/uapi/asm/signal.h, include/uapi/asm-generic/signal.h); a test checks them
// against package syscall. IOT, CLD and POLL are Linux's other names for 6, 17 and 29.
var signalNames = map[string]int{
	"HUP": 1, "INT": 2, "QUIT": 3, "ILL": 4, "TRAP": 5, "ABRT": 6, "IOT": 6, "BUS": 7, "FPE": 8,
	"KILL": 9, "USR1": 10, "SEGV": 11, "USR2": 12, "PIPE": 13, "ALRM": 14, "TERM": 15,
	"STKFLT": 16, "CHLD": 17, "CLD": 17, "CONT": 18, "STOP": 19, "TSTP": 20, "TTIN": 21,
	"TTOU": 22, "URG": 23, "XCPU": 24, "XFSZ": 25, "VTALRM": 26, "PROF": 27, "WINCH": 28,
	"IO": 29, "POLL": 29, "PWR": 30, "SYS": 31,
}

// parseSignal reads SIG: a number 1..64, or a name of signalNames, with or without "SIG",
// in any case.
func parseSignal(s string) (int, error) {
	if n, err := strconv.Atoi(s); err == nil {
		if n < 1 || n > ctl.MaxSignal {
			return 0, fmt.Errorf("signal %d: want 1..%d", n, ctl.MaxSignal)
		}
		return n, nil
	}
	name := strings.TrimPrefix(strings.ToUpper(s), "SIG")
	if n, ok := signalNames[name]; ok {
		return n, nil
	}
	return 0, fmt.Errorf("unknown signal %q: want a number 1..%d or a name such as INT, QUIT, TERM, USR1", s, ctl.MaxSignal)
}
