//go:build unitrace_host && amd64

package shares

import (
	"strings"
	"testing"

	"github.com/unitrace/unitrace/kernel/machine"
)

func TestOption(t *testing.T) {
	t.Cleanup(func() { nShareWords = 0; machine.Host = machine.HostMachine{} })
	machine.Host = machine.HostMachine{}
	if Option(0, "unitrace.sharex=a:/b") || Option(0, "unitrace.cwd=/") {
		t.Fatal("a word that is not a share was taken")
	}
	if !Option(3, "unitrace.share=data:/mnt/data") || !Option(4, "unitrace.share=ro:/mnt/ro:ro") {
		t.Fatal("a share was not taken")
	}
	if nShareWords != 2 || shareWords[0] != 3 || shareWords[1] != 4 {
		t.Fatalf("words %v (%d), want options 3 and 4", shareWords[:nShareWords], nShareWords)
	}
	for _, bad := range []string{"unitrace.share=data", "unitrace.share=data:relative", "unitrace.share=:/x", "unitrace.share=a:/x:rw"} {
		if !Option(9, bad) {
			t.Errorf("%s: not taken as the share option", bad)
		}
	}
	if nShareWords != 2 || !strings.Contains(string(machine.Host.Console), "unitrace.share: want TAG:GUESTDIR") {
		t.Fatalf("malformed shares were kept (%d), or not reported:\n%s", nShareWords, machine.Host.Console)
	}
	for i := nShareWords; i < len(shareWords); i++ {
		Option(10+i, "unitrace.share=t:/m")
	}
	machine.Host.Console = nil
	if !Option(99, "unitrace.share=one:/more") || nShareWords != len(shareWords) ||
		!strings.Contains(string(machine.Host.Console), "shares; ignored") {
		t.Fatalf("a share past the limit: %d words, console %q", nShareWords, machine.Host.Console)
	}
}
