// Package selfexec lets a main package's tests run the program itself as a child process: the
// test binary, started again with an environment variable set, runs main instead of the tests.
// The examples' tests use it to run each mode the way the VM tests boot it; the host commands'
// tests, to check the exit statuses their main returns.
package selfexec

import (
	"errors"
	"os"
	"os/exec"
	"strings"
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

// Output runs the program with args in a child process and returns its standard output.
func Output(args ...string) (string, error) {
	out, err := Command(args...).Output()
	return string(out), err
}

// CheckUsageErrors runs the program with each of the argument lists, which it must refuse with
// a usage error: exit status 2.
func CheckUsageErrors(t *testing.T, argLists [][]string) {
	t.Helper()
	for _, args := range argLists {
		out, err := Output(args...)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("args %q: exit %v, want status 2; output:\n%s", args, err, out)
		}
	}
}

// CheckHelp runs the program with each of the argument lists, which ask for its usage (-h,
// -help): it must print the usage and exit with status 0.
func CheckHelp(t *testing.T, argLists [][]string) {
	t.Helper()
	for _, args := range argLists {
		out, err := Command(args...).CombinedOutput()
		if err != nil || !strings.Contains(strings.ToLower(string(out)), "usage") {
			t.Errorf("args %q: exit %v, want status 0 and the usage; output:\n%s", args, err, out)
		}
	}
}
