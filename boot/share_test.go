package boot

import "testing"

func TestParseShare(t *testing.T) {
	for _, tc := range []struct {
		word string
		want Share
		ok   bool
	}{
		{"unitrace.share=share0:/data", Share{"share0", "/data", false}, true},
		{"unitrace.share=share1:/mnt/out:ro", Share{"share1", "/mnt/out", true}, true},
		{"unitrace.share=s:/a/b/c", Share{"s", "/a/b/c", false}, true},
		{"unitrace.share=share0:/", Share{}, false},
		{"unitrace.share=share0:/:ro", Share{}, false},
		{"unitrace.share=share0:data", Share{}, false},
		{"unitrace.share=:/data", Share{}, false},
		{"unitrace.share=share0", Share{}, false},
		{"unitrace.share=share0:/a:rw", Share{}, false},
		{"unitrace.share=share0:/a:b", Share{}, false},
		{"unitrace.shares=share0:/a", Share{}, false},
		{"share0:/a", Share{}, false},
	} {
		got, ok := ParseShare(tc.word)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseShare(%q) = %+v, %v; want %+v, %v", tc.word, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzParseShare(f *testing.F) {
	f.Add("unitrace.share=share0:/mnt/x:ro")
	f.Fuzz(func(t *testing.T, word string) {
		s, ok := ParseShare(word)
		if !ok {
			return
		}
		back := ShareOption + s.Tag + ":" + s.Dir
		if s.ReadOnly {
			back += ":ro"
		}
		if back != word || s.Tag == "" || s.Dir[0] != '/' || len(s.Dir) < 2 {
			t.Fatalf("ParseShare(%q) = %+v, which writes back as %q", word, s, back)
		}
	})
}
