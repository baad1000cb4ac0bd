package main

import (
	"strings"
	"testing"
)

func TestParseSignal(t *testing.T) {
	for in, want := range map[string]int{
		"2": 2, "64": 64, "1": 1, "INT": 2, "SIGINT": 2, "int": 2, "sigquit": 3, "QUIT": 3,
		"TERM": 15, "USR1": 10, "SIGUSR2": 12, "KILL": 9, "IOT": 6, "CLD": 17, "POLL": 29, "SYS": 31,
	} {
		if got, err := parseSignal(in); err != nil || got != want {
			t.Errorf("parseSignal(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for in, why := range map[string]string{
		"0": "want 1..64", "65": "want 1..64", "-2": "want 1..64", "": "unknown signal",
		"SIG": "unknown signal", "SIGSIGINT": "unknown signal", "RTMIN": "unknown signal", " INT": "unknown signal",
	} {
		if _, err := parseSignal(in); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("parseSignal(%q): %v, want %q", in, err, why)
		}
	}
}
