package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// guest is one way of booting the benchmark.
type guest struct {
	name string
	qemu string   // the QEMU binary
	args []string // its command line
}

// session is a booted guest running examples/bench -serve: it waits on its console for the
// next workload to run (examples/bench/serve.go has the protocol).
type session struct {
	name      string
	stdin     io.WriteCloser
	lines     chan string // the console's lines, closed once QEMU has exited
	exitErr   error       // QEMU's exit status, set before lines is closed
	boot      time.Duration
	workloads []workloadInfo // in the guest's order
	cancel    context.CancelFunc
}

// errExited is the error of a session whose QEMU has exited.
var errExited = errors.New("QEMU exited")

type workloadInfo struct{ name, unit string }

// start boots the guest and waits until it is ready for its first command: boot is then QEMU's
// start to the guest's boot_ns line.
func (g guest) start(timeout time.Duration) (*session, error) {
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, g.qemu, g.args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, err
	}
	s := &session{name: g.name, stdin: stdin, lines: make(chan string, 64), cancel: cancel}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			s.lines <- strings.TrimSpace(sc.Text())
		}
		s.exitErr = cmd.Wait()
		close(s.lines)
	}()
	deadline := time.After(timeout)
	for {
		line, err := s.next(deadline)
		if err != nil {
			s.kill()
			return nil, fmt.Errorf("booting: %w", err)
		}
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "boot_ns" && s.boot == 0:
			s.boot = time.Since(start)
		case len(f) >= 1 && f[0] == "workloads":
			if len(f)%2 != 1 {
				s.kill()
				return nil, fmt.Errorf("bad workloads line %q", line)
			}
			for i := 1; i < len(f); i += 2 {
				s.workloads = append(s.workloads, workloadInfo{f[i], f[i+1]})
			}
		case line == "ready":
			if s.boot == 0 || len(s.workloads) == 0 {
				s.kill()
				return nil, errors.New("ready before its boot_ns and workloads lines")
			}
			return s, nil
		case len(f) >= 1 && f[0] == "bench-error":
			s.kill()
			return nil, errors.New(line)
		}
	}
}

// next returns the console's next line, or an error if QEMU exited or deadline came first.
func (s *session) next(deadline <-chan time.Time) (string, error) {
	select {
	case line, ok := <-s.lines:
		if !ok {
			return "", fmt.Errorf("%w (%v)", errExited, s.exitErr)
		}
		return line, nil
	case <-deadline:
		return "", errors.New("no answer in time")
	}
}

// run has the guest run one batch of the workload name and returns its value.
func (s *session) run(name string, timeout time.Duration) (float64, error) {
	if _, err := fmt.Fprintf(s.stdin, "run %s\n", name); err != nil {
		return 0, fmt.Errorf("%s: asking for %s: %w", s.name, name, err)
	}
	deadline := time.After(timeout)
	var value float64
	got := false
	for {
		line, err := s.next(deadline)
		if err != nil {
			return 0, fmt.Errorf("%s: running %s: %w", s.name, name, err)
		}
		f := strings.Fields(line)
		switch {
		case len(f) == 4 && f[0] == "bench" && f[1] == name:
			v, err := strconv.ParseFloat(f[2], 64)
			if err != nil || v < 0 {
				return 0, fmt.Errorf("%s: bad bench line %q", s.name, line)
			}
			value, got = v, true
		case line == "ready" && got:
			return value, nil
		case len(f) >= 1 && f[0] == "bench-error":
			return 0, fmt.Errorf("%s: %s", s.name, line)
		}
	}
}

// quit ends the guest's program (its kernel then stops QEMU) and waits for QEMU to exit; a
// guest that does not go in time is killed.
func (s *session) quit(timeout time.Duration) error {
	defer s.cancel()
	fmt.Fprintf(s.stdin, "quit\n")
	deadline := time.After(timeout)
	for {
		if _, err := s.next(deadline); err != nil {
			if errors.Is(err, errExited) {
				return nil
			}
			s.kill()
			return fmt.Errorf("%s: quitting: %w", s.name, err)
		}
	}
}

// kill stops QEMU at once.
func (s *session) kill() {
	s.cancel()
	for range s.lines {
	}
}
