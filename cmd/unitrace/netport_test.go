package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestDNSWord(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ conf, want string }{
		{"nameserver 10.0.0.1\nsearch x\nnameserver ::1\n", "unitrace.dns=10.0.0.1,::1"},
		{"# nameserver 1.1.1.1\nnameserver bogus\n", ""},
		{"nameserver 1.1.1.1\nnameserver 1.1.1.2\nnameserver 1.1.1.3\nnameserver 1.1.1.4\n", "unitrace.dns=1.1.1.1,1.1.1.2,1.1.1.3"},
	} {
		p := filepath.Join(dir, "resolv.conf")
		os.WriteFile(p, []byte(tc.conf), 0o644)
		if got := dnsWord(p); got != tc.want {
			t.Errorf("dnsWord(%q) = %q, want %q", tc.conf, got, tc.want)
		}
	}
	if got := dnsWord(filepath.Join(dir, "missing")); got != "" {
		t.Errorf("no resolv.conf: %q", got)
	}
}

func TestListenFlag(t *testing.T) {
	l := listenFlag{}
	if err := l.Set("8080=127.0.0.1:18080"); err != nil || l[8080].String() != "127.0.0.1:18080" {
		t.Fatalf("Set: %v, %v", err, l)
	}
	for _, bad := range []string{"8080", "0=127.0.0.1:1", "x=127.0.0.1:1", "80=localhost:1", "70000=127.0.0.1:1"} {
		if err := l.Set(bad); err == nil {
			t.Errorf("Set(%q) accepted", bad)
		}
	}
}

// TestGuestNameservers: on a machine with the net port the guest is told the host's nameservers,
// unless -net=none; q35 has no port, so no word either.
func TestGuestNameservers(t *testing.T) {
	want := dnsWord(hostResolvConf)
	for _, tc := range []struct {
		args []string
		dns  bool
	}{
		{[]string{"app"}, want != ""},
		{[]string{"-net", "none", "app"}, false},
		{[]string{"-machine", "q35", "app"}, false},
	} {
		o, err := parseRun("run", tc.args, &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		g, err := o.guest()
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(g.cfg.Env, want); got != tc.dns {
			t.Errorf("%q: env %q, want the nameservers' word %v", tc.args, g.cfg.Env, tc.dns)
		}
	}
}
