package main

import (
	"flag"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/internal/selfexec"
)

// TestMain runs main instead of the tests in a child started by selfexec.Command.
func TestMain(m *testing.M) { selfexec.Main(m, main) }

// synopsisFlag is a flag named in a synopsis: "-name" at the start or after a space, "[" or
// "|" ("--", the end of the flags, names none).
var synopsisFlag = regexp.MustCompile(`(?:^|[ \[|])-([A-Za-z][A-Za-z0-9-]*)`)

// TestSynopses: every subcommand's synopsis names each flag its setup defines exactly once,
// and no other; names are unique and every subcommand has a summary and a doc.
func TestSynopses(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range commands {
		if seen[c.name] {
			t.Errorf("two subcommands are named %q", c.name)
		}
		seen[c.name] = true
		if c.summary == "" || c.doc == "" {
			t.Errorf("%s: no summary or no doc", c.name)
		}
		fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
		c.setup(fs)
		var defined []string
		fs.VisitAll(func(f *flag.Flag) { defined = append(defined, f.Name) })
		var named []string
		for _, m := range synopsisFlag.FindAllStringSubmatch(c.synopsis, -1) {
			named = append(named, m[1])
		}
		slices.Sort(named)
		if !slices.Equal(named, defined) { // VisitAll visits in sorted order
			t.Errorf("%s: the synopsis names the flags %q, its flag set defines %q\nsynopsis: %s", c.name, named, defined, c.synopsis)
		}
	}
}

// TestUsageStatuses: "unitrace help", -h and -help, for the tool and for every subcommand,
// print the usage and exit 0; a flag a subcommand does not define exits 2. The usage texts
// come from the table: the tool's lists every subcommand's synopsis, a subcommand's starts
// with its own.
func TestUsageStatuses(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"-help"}, {"--help"}} {
		out, errs, st := runCLI(t, args...)
		if st != 0 || errs != "" {
			t.Errorf("%q: status %d, stderr %q", args, st, errs)
		}
		for _, c := range commands {
			if line := wrapSynopsis("  "+c.name, c.synopsis, "      "); !strings.Contains(out, line+"\n    \t"+c.summary+"\n") {
				t.Errorf("%q: no entry for %s:\n%s", args, c.name, out)
			}
		}
	}
	for _, c := range commands {
		for _, h := range []string{"-h", "-help", "--help"} {
			out, errs, st := runCLI(t, c.name, h)
			if st != 0 || out != "" || !strings.HasPrefix(errs, c.usageLine()+"\n\n"+c.doc) || !strings.Contains(errs, "\nFlags:\n") {
				t.Errorf("%s %s: status %d, stdout %q, stderr:\n%s", c.name, h, st, out, errs)
			}
		}
		if _, errs, st := runCLI(t, c.name, "-no-such-flag"); st != 2 || !strings.Contains(errs, "flag provided but not defined: -no-such-flag") {
			t.Errorf("%s -no-such-flag: status %d, stderr:\n%s", c.name, st, errs)
		}
	}
}

// TestMainStatuses checks the same statuses from main, in a child process.
func TestMainStatuses(t *testing.T) {
	var help [][]string
	bad := [][]string{{}, {"frobnicate"}}
	for _, c := range commands {
		help = append(help, []string{c.name, "-h"})
		bad = append(bad, []string{c.name, "-no-such-flag"})
	}
	selfexec.CheckHelp(t, append(help, []string{"help"}, []string{"-h"}))
	selfexec.CheckUsageErrors(t, bad)
}

// TestWrapSynopsis: lines break between words, never inside brackets, and stay within
// synopsisWidth unless one word is wider.
func TestWrapSynopsis(t *testing.T) {
	for _, c := range commands {
		got := wrapSynopsis("usage: unitrace "+c.name, c.synopsis, "        ")
		if strings.Join(strings.Fields(got), " ") != "usage: unitrace "+c.name+" "+c.synopsis {
			t.Errorf("%s: wrapping changed the words:\n%s", c.name, got)
		}
		for _, line := range strings.Split(got, "\n") {
			if len(line) > synopsisWidth {
				t.Errorf("%s: line wider than %d: %q", c.name, synopsisWidth, line)
			}
			if strings.Count(line, "[") != strings.Count(line, "]") {
				t.Errorf("%s: a bracketed group is split: %q", c.name, line)
			}
		}
	}
	if got := synopsisWords("-func F [-g thread|cpu|none] [KEY=VALUE ...] FILE"); !slices.Equal(got,
		[]string{"-func", "F", "[-g thread|cpu|none]", "[KEY=VALUE ...]", "FILE"}) {
		t.Errorf("synopsisWords: %q", got)
	}
}
