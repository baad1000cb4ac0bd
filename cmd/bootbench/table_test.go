package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestPausedArgs: the serial port goes off, the monitor takes standard input and output, and
// the CPUs start paused; every other argument stays.
func TestPausedArgs(t *testing.T) {
	got := pausedArgs([]string{"-M", "q35", "-serial", "stdio", "-kernel", "k"})
	want := []string{"-M", "q35", "-serial", "none", "-kernel", "k", "-S", "-monitor", "stdio"}
	if !slices.Equal(got, want) {
		t.Errorf("pausedArgs = %q, want %q", got, want)
	}
}

// TestMedians: each field's median is its own, not one boot's.
func TestMedians(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	got := medians([]sample{{ms(300), ms(10), ms(100)}, {ms(100), ms(30), ms(300)}, {ms(200), ms(20), ms(200)}})
	if want := (sample{ms(200), ms(20), ms(200)}); got != want {
		t.Errorf("medians = %+v, want %+v", got, want)
	}
}

// TestWriteTable: the net row subtracts each guest's own QEMU start and says how many times
// faster unitrace's guest is.
func TestWriteTable(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	var b strings.Builder
	writeTable(&b, "q35", sample{wall: ms(200), guest: ms(60), qemu: ms(120)}, sample{wall: ms(2120), guest: ms(1900), qemu: ms(120)}, 7)
	out := b.String()
	for _, want := range []string{"median of 7 interleaved boots", "QEMU alone (-S, quit)", "80ms", "2s", "ratio 0.040 (25 times faster)"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}
