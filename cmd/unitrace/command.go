package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// command is one subcommand. Its usage has one source, these fields: name, synopsis and summary
// are its entry in "unitrace help"; "unitrace NAME -h" prints the synopsis, doc and the flags
// setup defines; a usage error repeats the synopsis. TestSynopses checks that each synopsis
// names exactly the flags its setup defines.
type command struct {
	name     string
	synopsis string // what follows "unitrace NAME": its flags, every one, and its operands
	summary  string // one line for the subcommand table
	doc      string // what -h prints between the synopsis and the flags
	// setup defines the subcommand's flags on fs and returns the function that runs it: that
	// parses args with fs and returns nil, a usageError, an exitStatus or another error (exit
	// status 1). fs.Name() is the subcommand's name, for messages.
	setup func(fs *flag.FlagSet) func(std stdio, args []string) error
}

// run runs the subcommand with args: a flag set of its own, its flags defined by setup, that
// prints the usage and the flag errors on std.err.
func (c *command) run(std stdio, args []string) error {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(std.err)
	fs.Usage = func() {
		fmt.Fprintf(std.err, "%s\n\n%s\nFlags:\n", c.usageLine(), c.doc)
		fs.PrintDefaults()
	}
	return c.setup(fs)(std, args)
}

// usageLine is "usage: unitrace NAME SYNOPSIS", wrapped.
func (c *command) usageLine() string {
	return wrapSynopsis("usage: unitrace "+c.name, c.synopsis, "        ")
}

// synopsisWidth is how wide a wrapped synopsis line may be, indentation included.
const synopsisWidth = 100

// wrapSynopsis returns prefix and synopsis on as many lines as they need to stay within
// synopsisWidth, each line after the first starting with indent. Lines break between the
// synopsis's words; a bracketed group ("[-g thread|cpu|none]", "[KEY=VALUE ...]") is one word.
func wrapSynopsis(prefix, synopsis, indent string) string {
	var b strings.Builder
	b.WriteString(prefix)
	col := len(prefix)
	for _, w := range synopsisWords(synopsis) {
		if col+1+len(w) > synopsisWidth && col > len(indent) {
			b.WriteString("\n" + indent)
			col = len(indent)
		} else {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += len(w)
	}
	return b.String()
}

// synopsisWords splits a synopsis at the spaces outside brackets.
func synopsisWords(synopsis string) []string {
	var words []string
	depth, start := 0, 0
	for i := 0; i <= len(synopsis); i++ {
		switch {
		case i == len(synopsis) || synopsis[i] == ' ' && depth == 0:
			if i > start {
				words = append(words, synopsis[start:i])
			}
			start = i + 1
		case synopsis[i] == '[':
			depth++
		case synopsis[i] == ']':
			depth--
		}
	}
	return words
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

// flagError maps a flag parsing error to the CLI's conventions.
func flagError(err error) error {
	var uerr usageError
	if errors.Is(err, flag.ErrHelp) || errors.As(err, &uerr) {
		return err
	}
	return exitStatus(2) // the flag package already said what
}
