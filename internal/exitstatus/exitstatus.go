// Package exitstatus is how the small host commands (mkimage, bootbench, perfcompare) turn
// the error their run returns into an exit status, the same way for each: 0 when it succeeded
// or when -h or -help asked for the usage (the flag package has printed it), 2 for a mistake
// on the command line, 1 for any other failure. The unitrace CLI gives the same statuses from
// its own cli function (cmd/unitrace), which also passes the guest's exit status through;
// kernelcheck keeps 1 for findings and 2 for a check that could not run.
package exitstatus

import (
	"errors"
	"flag"
	"fmt"
	"os"
)

// The statuses.
const (
	OK      = 0
	Failure = 1
	Usage   = 2
)

// UsageError is a mistake on the command line.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// ParseFlags parses args with fs. A flag fs does not define, or a bad value, comes back as a
// UsageError (the flag package has printed it and the usage); -h and -help come back as
// flag.ErrHelp.
func ParseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	return UsageError{err}
}

// Of returns the exit status for the error a command's run returned.
func Of(err error) int {
	var uerr UsageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return OK
	case errors.As(err, &uerr):
		return Usage
	}
	return Failure
}

// Exit ends the command named prog with the status for err, after printing "prog: err" on
// standard error unless there is nothing to say (err is nil or flag.ErrHelp).
func Exit(prog string, err error) {
	if Of(err) != OK {
		fmt.Fprintf(os.Stderr, "%s: %v\n", prog, err)
	}
	os.Exit(Of(err))
}
