// Command hello is unitrace's first workload. It exercises what the Go
// runtime needs from the kernel: threads and futexes (1000 goroutines, channels,
// WaitGroup, Mutex), timers (Sleep, Timer, Ticker), memory (hundreds of MiB
// allocated under forced GCs), asynchronous preemption (a goroutine spinning
// in a loop without calls while main sleeps and forces a GC) and signals
// (recovered nil-pointer and divide-by-zero panics). It prints one
// deterministic line per check, so a test can compare the console line by
// line, and exits with status 3.
//
// It runs on the host too (go run ./examples/hello): the kernel package does
// nothing unless the image was booted.
package main

import (
	"fmt"
	"os"

	_ "github.com/unitrace/unitrace/kernel"
)

// envVar is the environment variable hello echoes, so the command-line test
// can see KEY=VALUE words from QEMU's -append arrive.
const envVar = "HELLO_NAME"

// checks run in this order; each returns its result line (without the
// name) or an error.
var checks = []struct {
	name string
	run  func() (string, error)
}{
	{"tokens", tokenRing},
	{"mutex", mutexCounter},
	{"sleep", sleep},
	{"timer", timer},
	{"ticker", ticker},
	{"gc", allocate},
	{"maps", maps},
	{"preempt", preempt},
	{"recover nil pointer", recoverNilPointer},
	{"recover divide", recoverDivide},
	{"recover divide instruction", recoverDivideInstruction},
}

func main() {
	fmt.Println("hello: unitrace example workload")
	fmt.Printf("args: %q\n", os.Args[1:])
	fmt.Printf("env %s: %q\n", envVar, os.Getenv(envVar))
	failed := 0
	for _, c := range checks {
		line, err := c.run()
		if err != nil {
			failed++
			fmt.Printf("%s: FAIL: %v\n", c.name, err)
			continue
		}
		fmt.Printf("%s: %s\n", c.name, line)
	}
	if failed > 0 {
		fmt.Printf("exit: 1 (%d checks failed)\n", failed)
		os.Exit(1)
	}
	fmt.Println("exit: 3")
	os.Exit(3)
}
