// Package selfexec lets a main package's tests run the program itself as a child process: the
// test binary, started again with an environment variable set, runs main instead of the tests.
// The examples' tests use it to run each mode the way the VM tests boot it.
package selfexec

import (
	"os"
	"os/exec"
	"testing"
)

// envVar, set to 1 in a child's environment, makes Main run the program.
const envVar = "UNITRACE_SELFEXEC_MAIN"

// Main is the test package's TestMain: in a child started by Command it runs main and returns,
// otherwise it runs the tests and exits with their status.
func Main(m *testing.M, main func()) {
	if os.Getenv(envVar) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// Command is a command that runs the program with args (as os.Args[1:]) in a child process.
// Add to its Env, which holds this process's environment, rather than replacing it.
func Command(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), envVar+"=1")
	return cmd
}
