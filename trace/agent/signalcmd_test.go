package agent

import (
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// TestSignalCommand runs the signal command on the host, as the control loop does: the reply
// is ok and says nothing was sent yet; the signal reaches this process only when the returned
// function runs, after the reply. The agent serves it with and without the tracer, and a
// control-only agent refuses the tracer's commands.
func TestSignalCommand(t *testing.T) {
	got := make(chan os.Signal, 1)
	signal.Notify(got, syscall.SIGUSR1)
	defer signal.Stop(got)
	for _, a := range []*agent{{tracer: true}, {}, {tracer: true, stopped: true}} {
		reply, then := a.execute([]byte(`{"id":7,"cmd":"signal","sig":10}`))
		if string(reply) != `{"id":7,"ok":true}` || then == nil {
			t.Fatalf("tracer %v: reply %s, then %v", a.tracer, reply, then != nil)
		}
		select {
		case s := <-got:
			t.Fatalf("%v arrived before the reply was out", s)
		case <-time.After(50 * time.Millisecond):
		}
		then()
		select {
		case <-got:
		case <-time.After(5 * time.Second):
			t.Fatal("SIGUSR1 did not arrive")
		}
	}
	a := &agent{}
	for _, tt := range []struct{ cmd, want string }{
		{`{"id":1,"cmd":"signal","sig":65}`, `{"id":1,"error":"bad signal (sig must be 1..64)"}`},
		{`{"id":2,"cmd":"signal"}`, `{"id":2,"error":"missing field"}`},
		{`{"id":3,"cmd":"stacks"}`, `{"id":3,"error":"the tracer is not running: this guest serves only the signal and stdin commands"}`},
		{`{"id":4,"cmd":"hello"}`, `{"id":4,"error":"the tracer is not running: this guest serves only the signal and stdin commands"}`},
	} {
		if reply, then := a.execute([]byte(tt.cmd)); string(reply) != tt.want || then != nil {
			t.Errorf("%s: %s (then %v), want %s", tt.cmd, reply, then != nil, tt.want)
		}
	}
}
