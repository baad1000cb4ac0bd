package agent

import "testing"

// TestStdinCommands runs the stdin commands on the host, whose Linux has no trace.SysCtl
// (ENOSYS): they reach the kernel with and without the tracer and after stop, unlike the
// tracer's commands, and a kernel without the call makes them "not available".
func TestStdinCommands(t *testing.T) {
	for _, a := range []*agent{{tracer: true}, {}, {tracer: true, stopped: true}} {
		for _, tt := range []struct{ cmd, want string }{
			{`{"id":5,"cmd":"stdin.open"}`, `{"id":5,"error":"not available in this kernel"}`},
			{`{"id":6,"cmd":"stdin.end","total":12}`, `{"id":6,"error":"not available in this kernel"}`},
			{`{"id":7,"cmd":"stdin.end"}`, `{"id":7,"error":"missing field"}`},
		} {
			if reply, then := a.execute([]byte(tt.cmd)); string(reply) != tt.want || then != nil {
				t.Errorf("tracer %v stopped %v: %s: %s (then %v), want %s", a.tracer, a.stopped, tt.cmd, reply, then != nil, tt.want)
			}
		}
	}
}
