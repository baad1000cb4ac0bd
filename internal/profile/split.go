package profile

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
)

// CPUSplit is where one CPU's sampled time went, in deadlines (samples weighted): in the
// kernel's trap context (a trap handler, a system call), in threads, or idle. The idle
// samples count whether or not the views show them.
type CPUSplit struct {
	CPU                  uint16
	Kernel, Thread, Idle int
}

// Total is the CPU's deadlines.
func (c CPUSplit) Total() int { return c.Kernel + c.Thread + c.Idle }

// countSplit counts one sample, before the idle ones are dropped.
func (p *Profile) countSplit(cpu uint16, weight int, idle, kernel bool) {
	c := p.split[cpu]
	if c == nil {
		c = &CPUSplit{CPU: cpu}
		p.split[cpu] = c
	}
	switch {
	case idle:
		c.Idle += weight
	case kernel:
		c.Kernel += weight
	default:
		c.Thread += weight
	}
}

// Split returns the kernel/thread/idle split of every CPU that sampled, in CPU order, and
// their sum (CPU 0 in the sum means nothing).
func (p *Profile) Split() (cpus []CPUSplit, all CPUSplit) {
	for _, cpu := range slices.Sorted(maps.Keys(p.split)) {
		c := *p.split[cpu]
		cpus = append(cpus, c)
		all.Kernel += c.Kernel
		all.Thread += c.Thread
		all.Idle += c.Idle
	}
	return cpus, all
}

// WriteSplit prints the split per CPU, one line each and one for all CPUs:
//
//	cpu    samples   kernel   thread     idle
//	  0         25   60.00%   40.00%    0.00%
//	all         39   69.23%   25.64%    5.13%
func WriteSplit(w io.Writer, p *Profile) error {
	cpus, all := p.Split()
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\n\n", p.Summary())
	fmt.Fprintf(bw, "samples per CPU, weighted by the deadlines they stand for: in the kernel's trap context, in threads, idle\n")
	fmt.Fprintf(bw, "%5s %10s %8s %8s %8s\n", "cpu", "samples", "kernel", "thread", "idle")
	line := func(name string, c CPUSplit) {
		t := c.Total()
		fmt.Fprintf(bw, "%5s %10d %8s %8s %8s\n", name, t, share(c.Kernel, t), share(c.Thread, t), share(c.Idle, t))
	}
	for _, c := range cpus {
		line(fmt.Sprint(c.CPU), c)
	}
	line("all", all)
	return bw.Flush()
}

func share(n, total int) string {
	return fmt.Sprintf("%.2f%%", 100*float64(n)/float64(max(total, 1)))
}
