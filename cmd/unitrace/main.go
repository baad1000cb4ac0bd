// Command unitrace is unitrace's host tool: it builds unitrace images, boots
// them in QEMU, and records and presents what the guest's tracer and sampler
// send back.
//
//	unitrace run [flags] APP_DIR [KEY=VALUE ...] [-- ARGS ...]
//
// Run "unitrace help" for the subcommands.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// command is one subcommand. run returns nil, a usageError, an exitStatus or
// another error (exit status 1).
type command struct {
	name    string
	args    string
	summary string
	run     func(std stdio, name string, args []string) error
}

// commands is the subcommand table.
var commands = []command{
	{"run", "[flags] APP_DIR [KEY=VALUE ...] [-- ARGS ...]", "build the main package in APP_DIR into an image and boot it in QEMU (-trace records it)", runCommand},
	{"record", "-data SOCK -ctl SOCK [-trace GLOBS] [-backtrace] [-d DURATION] -o FILE", "attach to a running guest's trace ports (run -sockets DIR) and record", recordCommand},
	{"check", "FILE", "check a recording: transport errors, sequence gaps against LOST counts, clock sanity", checkCommand},
	{"list", "[-t GLOBS] [-cpu N] [-tid N] [-since D] [-until D] [-b] FILE", "print a recording's records in time order", listCommand},
	{"summary", "FILE", "counts per tracepoint, per-CPU spans, lost totals, durations of paired tracepoints", summaryCommand},
	{"timeline", "FILE -o trace.json", "write Chrome trace-event JSON for Perfetto", timelineCommand},
	{"prof", "[-g thread|cpu|none] [-r] [-function F | -split] [-min-hits N|N%] [-max-depth N] [-idle] [-no-leaf-fix] [-fold-kernel] FILE", "print the sampled call tree, the callers and callees of one function, or each CPU's kernel/thread/idle split", profCommand},
	{"pprof", "[-idle] [-no-leaf-fix] [-fold-kernel] FILE -o cpu.pb.gz", "write the samples as a pprof profile for go tool pprof", pprofCommand},
	{"folded", "[-g thread|cpu|none] [-min-hits N|N%] [-max-depth N] [-idle] [-no-leaf-fix] [-fold-kernel] FILE", "print folded stacks (root;...;leaf count) for flamegraph.pl and speedscope", foldedCommand},
	{"flame", "[-g thread|cpu|none] [-min-hits N|N%] [-max-depth N] [-idle] [-no-leaf-fix] [-fold-kernel] FILE -o FILE.svg", "write a self-contained SVG flame graph", flameCommand},
	{"annotate", "-func F [-idle] [-fold-kernel] FILE", "disassemble a function with per-instruction sample counts", annotateCommand},
	{"stacks", "-ctl SOCK [-image ELF] [-force] [-json] [-timeout D]", "print the stacks of every CPU and thread of a running guest (run -sockets DIR)", stacksCommand},
}

type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// usageError is a command line mistake: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// exitStatus ends the tool with a status whose reason was already printed.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func main() {
	os.Exit(cli(os.Args[1:], stdio{os.Stdin, os.Stdout, os.Stderr}))
}

// cli runs the tool and returns its exit status.
func cli(args []string, std stdio) int {
	if len(args) == 0 {
		usage(std.err)
		return 2
	}
	name := args[0]
	if name == "help" || name == "-h" || name == "-help" || name == "--help" {
		usage(std.out)
		return 0
	}
	for _, c := range commands {
		if c.name != name {
			continue
		}
		err := c.run(std, name, args[1:])
		var status exitStatus
		var uerr usageError
		switch {
		case err == nil:
			return 0
		case errors.As(err, &status):
			return int(status)
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.As(err, &uerr):
			fmt.Fprintf(std.err, "unitrace %s: %v\nusage: unitrace %s %s\n", name, err, c.name, c.args)
			return 2
		}
		fmt.Fprintf(std.err, "unitrace %s: %v\n", name, err)
		return 1
	}
	fmt.Fprintf(std.err, "unitrace: unknown subcommand %q\n", name)
	usage(std.err)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "usage: unitrace SUBCOMMAND [ARGS]\n\nsubcommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %s %s\n    \t%s\n", c.name, c.args, c.summary)
	}
	fmt.Fprintf(w, "\nRun \"unitrace SUBCOMMAND -h\" for a subcommand's flags.\n")
}
