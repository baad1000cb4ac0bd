package main

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/unitrace/unitrace/internal/tracefile"
)

// What the subcommands that read a recording share: its one FILE among the flags, loading it,
// the image that symbolizes it, and the flag values that select records.

// traceFlags parses the flags of a subcommand that reads one recording:
// FILE may come before or after the flags.
func traceFlags(fs *flag.FlagSet, args []string) (string, error) {
	var words []string
	for {
		if err := fs.Parse(args); err != nil {
			return "", err
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		words = append(words, args[0])
		args = args[1:]
	}
	if len(words) != 1 {
		return "", usageError{"want exactly one recording FILE"}
	}
	return words[0], nil
}

// imageFlagsSynopsis names the flags imageFlags defines, for the synopses.
const imageFlagsSynopsis = "[-elf ELF] [-force]"

// imageFlags are the flags of the commands that symbolize.
type imageFlags struct {
	elf   string
	force bool
}

func (f *imageFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.elf, "elf", "", "the image ELF (default: the one the recording names)")
	fs.BoolVar(&f.force, "force", false, "symbolize even if the image's build id does not match the recording")
}

// loadTrace reads a recording and reports its problems on stderr (the
// commands other than check carry on with what could be read).
func loadTrace(std stdio, name, file string, quiet bool) (*tracefile.Trace, error) {
	tr, err := tracefile.LoadFile(file)
	if err != nil {
		return nil, err
	}
	if !quiet {
		for _, p := range tr.Errors {
			fmt.Fprintf(std.err, "unitrace %s: %s: %v\n", name, file, p.Err)
		}
	}
	if tr.Hello == nil {
		fmt.Fprintf(std.err, "unitrace %s: %s: no HELLO frame: times are raw ticks\n", name, file)
	}
	return tr, nil
}

// formatNs prints ns since boot as seconds with nine decimals.
func formatNs(ns int64) string {
	sign := ""
	if ns < 0 {
		sign, ns = "-", -ns
	}
	return fmt.Sprintf("%s%d.%09d", sign, ns/1e9, ns%1e9)
}

// globs splits a comma-separated list of globs.
func globs(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// durationFlag is a time since boot given as a Go duration ("1.5s").
type durationFlag struct {
	set bool
	d   time.Duration
}

func (f *durationFlag) String() string { return f.d.String() }
func (f *durationFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	f.set, f.d = true, d
	return nil
}
