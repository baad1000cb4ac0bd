package vmconfig

import (
	"math/rand"
	"strings"
	"testing"
)

func TestParseExitLine(t *testing.T) {
	tests := []struct {
		line string
		n    int
		ok   bool
	}{
		{"unitrace: exit status 0", 0, true},
		{"unitrace: exit status 3", 3, true},
		{"unitrace: exit status 255", 255, true},
		{"unitrace: exit status 256", 0, false},
		{"unitrace: exit status -1", 0, false},
		{"unitrace: exit status +1", 0, false},
		{"unitrace: exit status 03", 0, false},
		{"unitrace: exit status ", 0, false},
		{"unitrace: exit status 3 ", 0, false},
		{"unitrace: exit status 1000", 0, false},
		{" unitrace: exit status 3", 0, false},
		{"exit status 3", 0, false},
	}
	for _, tt := range tests {
		n, ok := ParseExitLine(tt.line)
		if n != tt.n || ok != tt.ok {
			t.Errorf("%q = %d %v, want %d %v", tt.line, n, ok, tt.n, tt.ok)
		}
	}
}

func TestConsole(t *testing.T) {
	tests := []struct {
		name, text string
		want       Seen
	}{
		{"nothing", "hello\nworld", Seen{}},
		{"exit", "hello\r\nunitrace: exit status 3\r\n", Seen{ExitLine: true, ExitStatus: 3}},
		{"exit without newline", "unitrace: exit status 7", Seen{ExitLine: true, ExitStatus: 7}},
		{"last exit wins", "unitrace: exit status 1\nunitrace: exit status 2\n", Seen{ExitLine: true, ExitStatus: 2}},
		{"fault", "unitrace: kernel fault: #PF at 0x0\nrip 0x1\nunitrace: kernel fault, halting\n", Seen{Fault: true, FaultHalting: true}},
		{"fault report cut short", "unitrace: kernel fault: #GP\nrax 0\n", Seen{Fault: true}},
		{"protocol text inside a line", "echo unitrace: exit status 3\n", Seen{}},
		{"long line", strings.Repeat("x", 100000) + "unitrace: exit status 3\n", Seen{}},
		{"after a long line", strings.Repeat("x", 100000) + "\nunitrace: exit status 4\n", Seen{ExitLine: true, ExitStatus: 4}},
		{"long line with prefix", "unitrace: exit status 5" + strings.Repeat("0", 200) + "\n", Seen{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Console
			c.Write([]byte(tt.text))
			c.Close()
			if got := c.Seen(); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// referenceSeen scans a whole console text at once: the model Console must
// agree with however the text arrives in pieces.
func referenceSeen(text string) Seen {
	var s Seen
	for _, line := range strings.Split(text, "\n") {
		if len(line) <= maxProtocolLine { // longer lines are never protocol lines
			ScanLine(&s, strings.TrimRight(line, "\r"))
		}
	}
	return s
}

func TestConsoleChunkingModel(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	pieces := []string{"unitrace: exit status ", "3", "12", "255", "\r", "\n", "unitrace: kernel fault", ", halting",
		"x", strings.Repeat("y", 130), "unitrace: "}
	for i := 0; i < 2000; i++ {
		var b strings.Builder
		for n := r.Intn(20); n > 0; n-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		text := b.String()
		var c Console
		for rest := text; rest != ""; {
			n := 1 + r.Intn(len(rest))
			c.Write([]byte(rest[:n]))
			rest = rest[n:]
		}
		c.Close()
		if got, want := c.Seen(), referenceSeen(text); got != want {
			t.Fatalf("%q: got %+v, want %+v", text, got, want)
		}
	}
}

func FuzzConsole(f *testing.F) {
	f.Add("unitrace: exit status 3\r\n", uint8(5))
	f.Add("unitrace: kernel fault: #DF\nunitrace: kernel fault, halting\n", uint8(1))
	f.Add(strings.Repeat("z", 300)+"\nunitrace: exit status 9", uint8(77))
	f.Add("unitrace: exit status 9"+strings.Repeat("\r", maxProtocolLine-len("unitrace: exit status 9")+1)+"\n", uint8(3))
	f.Fuzz(func(t *testing.T, text string, chunk uint8) {
		var c Console
		step := int(chunk) + 1
		for rest := text; rest != ""; {
			n := min(step, len(rest))
			if k, err := c.Write([]byte(rest[:n])); k != n || err != nil {
				t.Fatalf("Write = %d, %v", k, err)
			}
			rest = rest[n:]
		}
		c.Close()
		if got, want := c.Seen(), referenceSeen(text); got != want {
			t.Fatalf("got %+v, want %+v", got, want)
		}
	})
}
