// Command ctlguest is the guest of TestTraceControl: it keeps making system calls (so that
// enabled tracepoints fire) until the host stops the tracer with the stop command, then exits
// with status 0 (shortly after, so the stop's reply gets out). It gives up after a minute so that
// a broken test cannot hang the machine.
package main

import (
	"fmt"
	"os"
	"syscall"
	"time"

	_ "github.com/unitrace/unitrace/kernel"
	"github.com/unitrace/unitrace/trace"
)

func main() {
	deadline := time.Now().Add(time.Minute)
	calls := 0
	for !trace.Stopped() {
		if time.Now().After(deadline) {
			fmt.Println("ctlguest: never stopped")
			os.Exit(1)
		}
		syscall.Getpid()
		calls++
		if calls%100 == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	time.Sleep(300 * time.Millisecond) // let the agent reply to stop before the machine goes away
	fmt.Println("ctlguest: tracer stopped after", calls, "calls")
}
