package main

import (
	"strings"
	"testing"
	"time"

	"github.com/unitrace/unitrace/internal/httpload"
)

func TestWriteTable(t *testing.T) {
	r := func(n int, p50, p99 time.Duration) httpload.Result {
		return httpload.Result{Requests: n, Elapsed: time.Second, P50: p50, P99: p99}
	}
	uni := []httpload.Result{r(1000, 3*time.Millisecond, 8*time.Millisecond), r(1200, 2*time.Millisecond, 6*time.Millisecond)}
	lin := []httpload.Result{r(800, 3*time.Millisecond, 16*time.Millisecond), r(800, 4*time.Millisecond, 12*time.Millisecond)}
	var b strings.Builder
	writeTable(&b, options{rounds: 2, workers: 4, size: 1024, duration: 5 * time.Second, warmup: 2 * time.Second}, uni, lin)
	for _, want := range []string{
		"| requests per second | 1100 (1000-1200) | 800 (800-800) | 1.38 |",
		"| p50 latency | 2.50 ms (2.00-3.00) | 3.50 ms (3.00-4.00) | 0.75 |",
		"| p99 latency | 7.00 ms (6.00-8.00) | 14.00 ms (12.00-16.00) | 0.50 |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}
