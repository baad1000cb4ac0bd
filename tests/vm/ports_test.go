package vm_test

import (
	"bufio"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/unitrace/unitrace/internal/vmconfig"
)

// TestTracePorts boots examples/portecho (amd64 microvm, arm64 virt) with a virtio-serial device
// whose two named ports are unix sockets this test listens on. The guest writes 2000 lines to the data port
// (each write blocks until the device took it), then waits on the control port; the test sends
// a command once every line has arrived, and the guest echoes it on the data port. It checks
// that every byte arrived in order and that the blocked read woke up on the device's interrupt.
func TestTracePorts(t *testing.T) { forEachArch(t, testTracePorts) }

func testTracePorts(t *testing.T, a guestArch) {
	kernel := buildImage(t, a, "examples/portecho")
	ports, dataLn, ctlLn := traceSockets(t)
	result := make(chan []string, 1)
	go func() {
		data, err := dataLn.Accept()
		if err != nil {
			result <- []string{"accept data: " + err.Error()}
			return
		}
		defer data.Close()
		ctl, err := ctlLn.Accept()
		if err != nil {
			result <- []string{"accept ctl: " + err.Error()}
			return
		}
		defer ctl.Close()
		var got []string
		sc := bufio.NewScanner(data)
		for sc.Scan() {
			got = append(got, sc.Text())
			if len(got) == 2000 {
				fmt.Fprint(ctl, "ping")
			}
		}
		result <- got
	}()
	cfg := a.config(kernel)
	cfg.Trace = ports
	console, out := bootVM(t, cfg)
	if out.Kind != vmconfig.Exited || out.Status != 0 {
		t.Fatalf("outcome %+v\n%s", out, strings.Join(console, "\n"))
	}
	var got []string
	select {
	case got = <-result:
	case <-time.After(time.Minute):
		t.Fatal("the data socket never closed")
	}
	if len(got) != 2001 {
		t.Fatalf("got %d lines on the data port, want 2001; last: %q", len(got), got[max(0, len(got)-2):])
	}
	for i := 0; i < 2000; i++ {
		if want := fmt.Sprintf("line %05d of 2000", i); got[i] != want {
			t.Fatalf("line %d = %q, want %q", i, got[i], want)
		}
	}
	if got[2000] != "echo ping" {
		t.Errorf("last line %q, want the echoed command", got[2000])
	}
}
