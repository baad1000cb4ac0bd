// Command unitrace is unitrace's host tool: it builds unitrace images, boots
// them in QEMU, and records and presents what the guest's tracer and sampler
// send back.
//
//	unitrace run [flags] APP_DIR [KEY=VALUE ...] [-- ARGS ...]
//	unitrace test [flags] [PKG ...] [KEY=VALUE ...] [-- TESTFLAGS ...]
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

// commands is the subcommand table, in the order "unitrace help" lists them.
var commands = []*command{
	&runCommand,
	&testCommand,
	&recordCommand,
	&checkCommand,
	&listCommand,
	&summaryCommand,
	&timelineCommand,
	&profCommand,
	&pprofCommand,
	&compareCommand,
	&foldedCommand,
	&flameCommand,
	&annotateCommand,
	&stacksCommand,
	&signalCommand,
	&probeCommand,
}

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
		err := c.run(std, args[1:])
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
			fmt.Fprintf(std.err, "unitrace %s: %v\n%s\n", name, err, c.usageLine())
			return 2
		}
		fmt.Fprintf(std.err, "unitrace %s: %v\n", name, err)
		return 1
	}
	fmt.Fprintf(std.err, "unitrace: unknown subcommand %q\n", name)
	usage(std.err)
	return 2
}

// usage prints the subcommand table.
func usage(w io.Writer) {
	fmt.Fprintf(w, "usage: unitrace SUBCOMMAND [ARGS]\n\nsubcommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "%s\n    \t%s\n", wrapSynopsis("  "+c.name, c.synopsis, "      "), c.summary)
	}
	fmt.Fprintf(w, "\nRun \"unitrace SUBCOMMAND -h\" for a subcommand's flags.\n")
}
