// Command sysfuzzcmp runs the system-call fuzzer examples/sysfuzz in its deterministic mode
// (-det: one thread, call i made from the seed and i alone, from the same state every time) on
// the host's Linux and in a unitrace guest, with the same seed and number of calls, and prints
// per call the results only one side gave, and the pairs of results the two sides gave for the
// same call index (with how often and the first index, to reproduce with -seed and -only).
//
// On the host the fuzzer runs unprivileged: as the user nobody (setpriv) when sysfuzzcmp runs as
// root, in a scratch directory of its own under /tmp.
//
//	go run ./cmd/sysfuzzcmp [-arch amd64] [-seed 1] [-calls 2000] [-only read,write]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/unitrace/unitrace/examples/sysfuzz/fuzz"
)

func main() {
	arch := flag.String("arch", runtime.GOARCH, "guest architecture (the host's, so that both run the same table)")
	seed := flag.Uint64("seed", 1, "seed")
	calls := flag.Int("calls", 2000, "calls")
	only := flag.String("only", "", "only these calls (comma-separated)")
	flag.Parse()
	if err := run(*arch, *seed, *calls, *only); err != nil {
		fmt.Fprintln(os.Stderr, "sysfuzzcmp:", err)
		os.Exit(1)
	}
}

func run(arch string, seed uint64, calls int, only string) error {
	if arch != runtime.GOARCH {
		return fmt.Errorf("the host is %s: the guest must be too, for the same table", runtime.GOARCH)
	}
	args := []string{"-det", "-seed", strconv.FormatUint(seed, 10), "-calls", strconv.Itoa(calls), "-time", "0"}
	if only != "" {
		args = append(args, "-only", only)
	}
	tmp, err := os.MkdirTemp("", "sysfuzzcmp.")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "sysfuzz")
	if out, err := exec.Command("go", "build", "-o", bin, "./examples/sysfuzz").CombinedOutput(); err != nil {
		return fmt.Errorf("build: %v\n%s", err, out)
	}
	scratch := filepath.Join(tmp, "scratch")
	if err := os.Mkdir(scratch, 0o700); err != nil {
		return err
	}
	hostCmd := append([]string{bin, "-dir", scratch}, args...)
	if os.Geteuid() == 0 {
		if err := os.Chmod(tmp, 0o755); err != nil {
			return err
		}
		if err := os.Chown(scratch, 65534, 65534); err != nil {
			return err
		}
		hostCmd = append([]string{"setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"}, hostCmd...)
	}
	hostOut, hostErr := output(hostCmd...)
	host, err := fuzz.Parse(lines(hostOut))
	if err != nil || hostErr != nil || !bytes.Contains(hostOut, []byte("sysfuzz: ok")) {
		return fmt.Errorf("host run: %v %v\n%s", hostErr, err, tail(hostOut))
	}
	guestOut, guestErr := output(append([]string{"go", "run", "./cmd/unitrace", "run", "-arch", arch, "-smp", "1", "-timeout", "30m",
		"examples/sysfuzz", "--", "-dir", "/tmp"}, args...)...)
	guest, err := fuzz.Parse(lines(guestOut))
	if err != nil || guestErr != nil || !bytes.Contains(guestOut, []byte("sysfuzz: ok")) {
		return fmt.Errorf("guest run: %v %v\n%s", guestErr, err, tail(guestOut))
	}
	fmt.Printf("sysfuzzcmp: seed %d, %d calls on %s: host %d, guest %d call lines\n", seed, calls, arch, len(host.Calls), len(guest.Calls))
	for _, l := range fuzz.FormatDifferences(fuzz.Compare(host, guest), "host", "guest") {
		fmt.Println(l)
	}
	return nil
}

func output(argv ...string) ([]byte, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	err := cmd.Run()
	return out.Bytes(), err
}

// lines returns the report's lines of output: those that start with "stat " or "call ".
func lines(b []byte) []string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimRight(l, "\r")
		if strings.HasPrefix(l, "stat ") || strings.HasPrefix(l, "call ") {
			out = append(out, l)
		}
	}
	return out
}

func tail(b []byte) string {
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}
