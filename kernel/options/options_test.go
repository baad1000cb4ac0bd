package options

import "testing"

func TestFlagsSet(t *testing.T) {
	cases := []struct {
		word string
		want Flags
	}{
		{"unitrace.strace=1", Flags{Strace: true}},
		{"unitrace.verbose=1", Flags{Verbose: true}},
		{"unitrace.debug=kfault", Flags{DebugFault: true}},
		{"unitrace.debug=maskspin", Flags{MaskSpin: true}},
		{"unitrace.vdso=0", Flags{NoVDSO: true}},
		{"unitrace.stdin=null", Flags{StdinNull: true}},
		{"unitrace.avx=0", Flags{NoAVX: true}},
		{"unitrace.svcbranch=0", Flags{NoSVCBranch: true}},
		{"unitrace.tickless=0", Flags{NoTickless: true}},
		{"unitrace.unwind=fp", Flags{FPOnly: true}},
	}
	for _, c := range cases {
		var f Flags
		if !f.Set(c.word) || f != c.want {
			t.Errorf("Set(%q): %+v, want %+v", c.word, f, c.want)
		}
	}
	// Words that are not the kernel's own, or not in its exact spelling, are left to the
	// features' parsers (or reported as unknown).
	for _, w := range []string{"unitrace.strace=0", "unitrace.strace", "unitrace.sample=99", "strace=1", "unitrace.vdso=1", ""} {
		var f Flags
		if f.Set(w) || f != (Flags{}) {
			t.Errorf("Set(%q) took it: %+v", w, f)
		}
	}
}
