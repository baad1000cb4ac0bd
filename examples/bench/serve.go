package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// serve runs the workloads that in asks for, one batch at a time, and answers on out. The
// protocol is lines of text on the serial console, so that it works the same on both kernels
// (the Linux guest's console echoes what it reads; the host ignores lines it does not expect):
//
//	guest: workloads NAME UNIT NAME UNIT ...   (once, after boot_ns)
//	guest: ready                               (each time it waits for a command)
//	host:  run NAME                            guest: bench NAME VALUE UNIT
//	host:  quit                                the program ends
//
// An unknown command or name is answered "bench-error ..." and the program waits for the next.
func serve(in io.Reader, out io.Writer) error {
	var list strings.Builder
	list.WriteString("workloads")
	for _, w := range workloads {
		fmt.Fprintf(&list, " %s %s", w.name, w.unit)
	}
	fmt.Fprintln(out, list.String())
	r := bufio.NewReader(in)
	for {
		fmt.Fprintln(out, "ready")
		line, err := r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("reading a command: %w", err)
		}
		f := strings.Fields(line)
		switch {
		case len(f) == 1 && f[0] == "quit":
			return nil
		case len(f) == 2 && f[0] == "run":
			w, ok := workloadNamed(f[1])
			if !ok {
				fmt.Fprintf(out, "bench-error no workload %q\n", f[1])
				continue
			}
			fmt.Fprintf(out, "bench %s %.3f %s\n", w.name, w.run(), w.unit)
		case len(f) == 0:
			// an empty line (a terminal's stray return): nothing to do
		default:
			fmt.Fprintf(out, "bench-error unknown command %q\n", strings.TrimSpace(line))
		}
	}
}

func workloadNamed(name string) (workload, bool) {
	for _, w := range workloads {
		if w.name == name {
			return w, true
		}
	}
	return workload{}, false
}
