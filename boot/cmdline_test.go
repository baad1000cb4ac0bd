package boot

import (
	"slices"
	"strings"
	"testing"
)

type classes struct{ opts, env, args []string }

func collect(c *Cmdline) classes {
	var got classes
	for i := 0; i < c.NumOptions(); i++ {
		got.opts = append(got.opts, c.Option(i))
	}
	for i := 0; i < c.NumEnv(); i++ {
		got.env = append(got.env, c.Env(i))
	}
	for i := 0; i < c.NumArgs(); i++ {
		got.args = append(got.args, c.Arg(i))
	}
	return got
}

func TestParse(t *testing.T) {
	tests := []struct {
		line string
		want classes
	}{
		{"", classes{}},
		{"   \t\n ", classes{}},
		{"a b  c", classes{args: []string{"a", "b", "c"}}},
		{"unitrace.debug=kfault unitrace.quiet prog x", classes{
			opts: []string{"unitrace.debug=kfault", "unitrace.quiet"}, args: []string{"prog", "x"}}},
		// Without --, only leading options are options; KEY=VALUE is an argument.
		{"A=1 unitrace.x y", classes{args: []string{"A=1", "unitrace.x", "y"}}},
		{"unitrace.a x unitrace.b", classes{opts: []string{"unitrace.a"}, args: []string{"x", "unitrace.b"}}},
		{"GODEBUG=asyncpreemptoff=1 unitrace.debug=kfault HOME=/ -- -v --x --", classes{
			opts: []string{"unitrace.debug=kfault"},
			env:  []string{"GODEBUG=asyncpreemptoff=1", "HOME=/"},
			args: []string{"-v", "--x", "--"}}},
		{"--", classes{}},
		{"-- a", classes{args: []string{"a"}}},
		{"K= --", classes{env: []string{"K="}}},
		{`"a b" c"d e"f ""`, classes{args: []string{"a b", "cd ef", ""}}},
		{`"say \"hi\"" "back\\slash" "keep\n" out\side`, classes{
			args: []string{`say "hi"`, `back\slash`, `keep\n`, `out\side`}}},
		{`MSG="hello world" -- prog`, classes{env: []string{"MSG=hello world"}, args: []string{"prog"}}},
		{`"--" x`, classes{args: []string{"x"}}}, // a quoted -- still separates
		{"a\x00b c", classes{args: []string{"a"}}},
	}
	for _, tt := range tests {
		var c Cmdline
		err := c.Parse([]byte(tt.line))
		if err != OK {
			t.Errorf("%q: error %v", tt.line, err)
			continue
		}
		got := collect(&c)
		if !slices.Equal(got.opts, tt.want.opts) || !slices.Equal(got.env, tt.want.env) || !slices.Equal(got.args, tt.want.args) {
			t.Errorf("%q:\n got %q\nwant %q", tt.line, got, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		line string
		err  Error
		bad  string
	}{
		{"A=1 oops -- prog", ErrNotEnvOrOption, "oops"},
		{"=x --", ErrNotEnvOrOption, "=x"},
		{`"" --`, ErrNotEnvOrOption, ""},
		{`A=1 "two words" --`, ErrNotEnvOrOption, "two words"},
		{`"unterminated`, ErrUnterminatedQuote, ""},
		{`a "b\"`, ErrUnterminatedQuote, ""},
		{`"\\" "\"" "\`, ErrUnterminatedQuote, ""},
		{strings.Repeat("w ", MaxWords+1), ErrTooManyWords, ""},
		{strings.Repeat("x", MaxCmdline+1), ErrCmdlineTooLong, ""},
	}
	for _, tt := range tests {
		var c Cmdline
		if err := c.Parse([]byte(tt.line)); err != tt.err {
			t.Errorf("%.40q: error %v, want %v", tt.line, err, tt.err)
		}
		if c.BadWord() != tt.bad {
			t.Errorf("%.40q: BadWord %q, want %q", tt.line, c.BadWord(), tt.bad)
		}
		if c.NumArgs()+c.NumEnv()+c.NumOptions() != 0 {
			t.Errorf("%.40q: classes not empty after an error", tt.line)
		}
	}
}

func TestCapacityBoundaries(t *testing.T) {
	var c Cmdline
	if err := c.Parse([]byte(strings.Repeat("w ", MaxWords))); err != OK || c.NumArgs() != MaxWords {
		t.Fatalf("%d words: %v, %d args", MaxWords, err, c.NumArgs())
	}
	long := strings.Repeat("x", MaxCmdline)
	if err := c.Parse([]byte(long)); err != OK || c.Arg(0) != long {
		t.Fatalf("%d bytes: %v", MaxCmdline, err)
	}
	// The NUL ends the line before the length check.
	if err := c.Parse([]byte("ok\x00" + long)); err != OK || c.Arg(0) != "ok" {
		t.Fatalf("NUL-terminated long buffer: %v", err)
	}
}

func TestAccessorsOutOfRange(t *testing.T) {
	var c Cmdline
	c.Parse([]byte("unitrace.a E=1 -- x"))
	for _, i := range []int{-1, 1, MaxWords, 1 << 30} {
		if c.Arg(i) != "" || c.Env(i) != "" || c.Option(i) != "" {
			t.Errorf("index %d returned a word", i)
		}
	}
	var zero Cmdline
	if zero.Arg(0) != "" || zero.BadWord() != "" || zero.NumArgs() != 0 {
		t.Error("zero Cmdline returned a word")
	}
}

func TestLookup(t *testing.T) {
	var c Cmdline
	c.Parse([]byte("unitrace.debug=kfault unitrace.quiet unitrace.debugx=1 unitrace.debug=all unitrace.empty= -- prog"))
	tests := []struct {
		name  string
		value string
		ok    bool
	}{
		{"debug", "all", true}, // the last one wins
		{"quiet", "", true},
		{"debugx", "1", true},
		{"empty", "", true},
		{"deb", "", false},
		{"missing", "", false},
	}
	for _, tt := range tests {
		if v, ok := c.Lookup(tt.name); v != tt.value || ok != tt.ok {
			t.Errorf("Lookup(%q) = %q, %v; want %q, %v", tt.name, v, ok, tt.value, tt.ok)
		}
	}
}

// TestReparseReusesBuffer documents that strings alias the buffer.
func TestReparseReusesBuffer(t *testing.T) {
	var c Cmdline
	c.Parse([]byte("first"))
	a := strings.Clone(c.Arg(0))
	c.Parse([]byte("other"))
	if a != "first" || c.Arg(0) != "other" {
		t.Fatalf("got %q then %q", a, c.Arg(0))
	}
}

// reference splits a line with the same rules, written as a straightforward
// state machine over runes of a string with a strings.Builder.
func reference(line string) ([]string, Error) {
	if i := strings.IndexByte(line, 0); i >= 0 {
		line = line[:i]
	}
	var words []string
	var cur strings.Builder
	in, quoted := false, false
	for i := 0; i < len(line); i++ {
		ch := line[i]
		if quoted {
			switch {
			case ch == '"':
				quoted = false
			case ch == '\\' && i+1 < len(line) && strings.IndexByte(`"\`, line[i+1]) >= 0:
				i++
				cur.WriteByte(line[i])
			default:
				cur.WriteByte(ch)
			}
			continue
		}
		switch {
		case strings.IndexByte(" \t\n\r\v\f", ch) >= 0:
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case ch == '"':
			quoted, in = true, true
		default:
			cur.WriteByte(ch)
			in = true
		}
	}
	if len(words) > MaxWords {
		return nil, ErrTooManyWords // Parse stops at the word that overflows
	}
	if quoted {
		return nil, ErrUnterminatedQuote
	}
	if in {
		words = append(words, cur.String())
	}
	return words, OK
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"unitrace.debug=kfault GODEBUG=x -- prog a b",
		`a"b c"d "" "\"q\"" \x`,
		"A=1 bad -- x", `"open`, "\x00abc", "-- -- --", "unitrace.",
		strings.Repeat("w ", MaxWords+1) + `"open`,
		strings.Repeat("?", MaxCmdline+1) + "\x00tail", // too long before its NUL
		strings.Repeat("?", MaxCmdline) + "\x00tail",   // exactly full before its NUL
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var c Cmdline
		err := c.Parse(line)
		text := line
		if nul := slices.Index(line, 0); nul >= 0 {
			text = line[:nul]
		}
		if len(text) > MaxCmdline {
			if err != ErrCmdlineTooLong {
				t.Fatalf("long line: %v", err)
			}
			return
		}
		words, rerr := reference(string(line))
		if rerr == OK && len(words) > MaxWords {
			rerr = ErrTooManyWords
		}
		if err == ErrNotEnvOrOption {
			if rerr != OK || !slices.Contains(words, "--") || !slices.Contains(words, c.BadWord()) {
				t.Fatalf("ErrNotEnvOrOption for %q (reference %v), bad word %q", line, rerr, c.BadWord())
			}
			return
		}
		if err != rerr {
			t.Fatalf("Parse(%q) = %v, reference %v", line, err, rerr)
		}
		if err != OK {
			return
		}
		got := collect(&c)
		// Every word lands in exactly one class, in order, and the
		// separator is the only one dropped.
		all := slices.Concat(got.opts, got.env, got.args)
		sep := slices.Index(words, "--")
		want := slices.Clone(words)
		if sep >= 0 {
			want = slices.Delete(want, sep, sep+1)
		}
		slices.Sort(all)
		slices.Sort(want)
		if !slices.Equal(all, want) {
			t.Fatalf("%q: classes %q, words %q", line, got, words)
		}
		for _, o := range got.opts {
			if !strings.HasPrefix(o, OptionPrefix) {
				t.Fatalf("option %q", o)
			}
		}
		for _, e := range got.env {
			if strings.IndexByte(e, '=') < 1 {
				t.Fatalf("env %q", e)
			}
		}
	})
}
