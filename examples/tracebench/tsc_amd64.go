package main

import "github.com/unitrace/unitrace/arch/amd64"

// tsc reads the time-stamp counter: the tracer's own tick source, at trace.Boot().TickHz.
func tsc() uint64 { return amd64.Rdtsc() }
