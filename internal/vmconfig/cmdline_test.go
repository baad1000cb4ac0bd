package vmconfig

import (
	"slices"
	"strings"
	"testing"
)

func TestGuestCommandLine(t *testing.T) {
	tests := []struct {
		env, args []string
		want      string
		err       string
	}{
		{nil, nil, "", ""},
		{[]string{"A=1"}, nil, "A=1 --", ""},
		{nil, []string{"x", "y"}, "-- x y", ""},
		{[]string{"GODEBUG=gctrace=1,madvdontneed=1", "unitrace.debug=kfault", "EMPTY="}, []string{"--", "-v", "k=v"},
			"GODEBUG=gctrace=1,madvdontneed=1 unitrace.debug=kfault EMPTY= -- -- -v k=v", ""},
		{[]string{"=1"}, nil, "", "not KEY=VALUE"},
		{[]string{"-x=1"}, nil, "", "not KEY=VALUE"},
		{[]string{"NOVALUE"}, nil, "", "not KEY=VALUE"},
		{[]string{"A=two words"}, nil, "", "white space"},
		{nil, []string{""}, "", "empty"},
		{nil, []string{"tab\there"}, "", "white space"},
		{nil, []string{"nl\n"}, "", "white space"},
	}
	for _, tt := range tests {
		got, err := GuestCommandLine(tt.env, tt.args)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q %q: err %v, want %q", tt.env, tt.args, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q %q = %q, %v; want %q", tt.env, tt.args, got, err, tt.want)
		}
	}
}

// splitGuestCommandLine is how the kernel reads the command line: words
// split on spaces, the first "--" separating environment from arguments.
func splitGuestCommandLine(s string) (env, args []string) {
	words := strings.Fields(s)
	i := slices.Index(words, "--")
	if i < 0 {
		return words, nil
	}
	return words[:i], words[i+1:]
}

// FuzzGuestCommandLine checks that whatever GuestCommandLine accepts, the
// kernel's split gives back exactly.
func FuzzGuestCommandLine(f *testing.F) {
	f.Add("A=1\x00B=2", "x\x00--\x00y")
	f.Add("", "")
	f.Add("GODEBUG=a=b", "two words")
	f.Fuzz(func(t *testing.T, envs, argv string) {
		var env, args []string
		if envs != "" {
			env = strings.Split(envs, "\x00")
		}
		if argv != "" {
			args = strings.Split(argv, "\x00")
		}
		s, err := GuestCommandLine(env, args)
		if err != nil {
			return
		}
		gotEnv, gotArgs := splitGuestCommandLine(s)
		if len(env) == 0 && len(args) == 0 {
			if s != "" {
				t.Fatalf("empty input gave %q", s)
			}
			return
		}
		if !slices.Equal(gotEnv, env) && !(len(gotEnv) == 0 && len(env) == 0) {
			t.Fatalf("env %q came back as %q from %q", env, gotEnv, s)
		}
		if !slices.Equal(gotArgs, args) && !(len(gotArgs) == 0 && len(args) == 0) {
			t.Fatalf("args %q came back as %q from %q", args, gotArgs, s)
		}
	})
}
