package main

import (
	"bytes"
	"fmt"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/google/pprof/profile"
)

// checkPprof profiles 2 s of spinning with runtime/pprof (100 Hz) and compares the samples with
// the CPU time the process used meanwhile: at least 90% of the expected count.
func checkPprof() (string, error) {
	var buf bytes.Buffer
	before := cpuTime()
	if err := pprof.StartCPUProfile(&buf); err != nil {
		return "", err
	}
	x := spin(2 * time.Second)
	pprof.StopCPUProfile()
	used := cpuTime() - before
	p, err := profile.Parse(&buf)
	if err != nil {
		return "", fmt.Errorf("parse: %w", err)
	}
	samples := int64(0)
	inSpin := int64(0)
	for _, s := range p.Sample {
		samples += s.Value[0]
		for _, loc := range s.Location {
			for _, l := range loc.Line {
				if l.Function != nil && l.Function.Name == "main.spin" {
					inSpin += s.Value[0]
				}
			}
		}
	}
	want := used.Seconds() * 100
	detail := fmt.Sprintf("samples=%d expected=%.0f ratio=%.2f in_spin=%d cpu=%v checksum=%x", samples, want, float64(samples)/want, inSpin, used.Round(time.Millisecond), x)
	if float64(samples) < 0.9*want || float64(inSpin) < 0.9*float64(samples) {
		return "", fmt.Errorf("%s: want at least 90%% of the expected samples, 90%% in main.spin", detail)
	}
	return detail, nil
}

// spin runs a xorshift loop until d of wall time has passed.
//
//go:noinline
func spin(d time.Duration) uint64 {
	x := uint64(0x9e3779b97f4a7c15)
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		for i := 0; i < 1<<14; i++ {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
		}
	}
	return x
}

// cpuTime is the process's user plus system time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
