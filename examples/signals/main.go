// Command signals waits for signals from the host: it asks os/signal for SIGINT and SIGUSR1,
// prints "signals: ready", then one line per signal received, and exits 0 after SIGINT (the
// N-th SIGINT with -exit-after N, so that a second ^C reaches the launcher). Any
// other signal has the Go runtime's default: SIGQUIT prints every goroutine's stack and exits
// with status 2. The main goroutine blocks in a plain channel receive, so every thread of the
// program may be asleep when a signal comes. tests/vm's TestSignals drives it with "unitrace
// signal" and with ^C to the launcher:
//
//	unitrace run -ctl /tmp/s.sock examples/signals &
//	unitrace signal -ctl /tmp/s.sock USR1
//	unitrace signal -ctl /tmp/s.sock INT
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	_ "github.com/unitrace/unitrace/kernel"
)

func main() {
	exitAfter := flag.Int("exit-after", 1, "exit after this many SIGINTs")
	flag.Parse()
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGUSR1)
	fmt.Println("signals: ready")
	for {
		s := <-ch
		fmt.Printf("signals: received %v\n", s)
		if s == syscall.SIGINT {
			if *exitAfter--; *exitAfter <= 0 {
				return
			}
		}
	}
}
