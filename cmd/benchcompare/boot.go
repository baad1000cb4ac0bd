package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
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

// result is what one boot measured: QEMU's start to the guest's first line, and each workload's
// value by name.
type result struct {
	boot   time.Duration
	values map[string]float64
	units  map[string]string
}

// boot runs the guest once, reading its console until QEMU exits or timeout passes.
func (g guest) boot(timeout time.Duration) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, g.qemu, g.args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return result{}, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return result{}, err
	}
	res := result{values: map[string]float64{}, units: map[string]string{}}
	var parseErr error
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if err := res.parse(strings.TrimSpace(sc.Text()), time.Since(start)); err != nil && parseErr == nil {
			parseErr = err
		}
	}
	waitErr := cmd.Wait()
	switch {
	case ctx.Err() != nil:
		return result{}, fmt.Errorf("no end within %v", timeout)
	case parseErr != nil:
		return result{}, parseErr
	case res.boot == 0:
		return result{}, fmt.Errorf("no boot_ns line (QEMU: %v)", waitErr)
	case len(res.values) == 0:
		return result{}, errors.New("no bench lines")
	}
	return res, nil
}

// parse reads one console line: the boot marker, a "bench NAME VALUE UNIT" line, or anything else
// (the kernels' own messages), which it ignores.
func (r *result) parse(line string, since time.Duration) error {
	if strings.HasPrefix(line, "boot_ns ") && r.boot == 0 {
		r.boot = since
		return nil
	}
	f := strings.Fields(line)
	if len(f) != 4 || f[0] != "bench" {
		return nil
	}
	v, err := strconv.ParseFloat(f[2], 64)
	if err != nil || v < 0 {
		return fmt.Errorf("bad bench line %q", line)
	}
	r.values[f[1]], r.units[f[1]] = v, f[3]
	return nil
}
