package vmconfig

import (
	"slices"
	"strings"
	"testing"

	"github.com/hugelgupf/vmtest/qemu"
)

func TestTracePorts(t *testing.T) {
	c := Config{Kernel: "k.elf", Trace: &TracePorts{Data: "/tmp/d.sock", Ctl: "/tmp/c.sock"}}
	args, err := c.QEMUArgs()
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Join(args, " ")
	for _, want := range []string{
		"-device virtio-serial-device,id=utser",
		"-chardev socket,id=utdata,path=/tmp/d.sock -device virtserialport,bus=utser.0,chardev=utdata,name=org.unitrace.data,nr=1",
		"-chardev socket,id=utctl,path=/tmp/c.sock -device virtserialport,bus=utser.0,chardev=utctl,name=org.unitrace.ctl,nr=2",
	} {
		if !strings.Contains(line, want) {
			t.Errorf("%s\nlacks %s", line, want)
		}
	}
	c.Trace.Server = true
	args, _ = c.QEMUArgs()
	if !slices.Contains(args, "socket,id=utdata,path=/tmp/d.sock,server=on,wait=off") {
		t.Errorf("server sockets: %v", args)
	}
	for _, bad := range []Config{
		{Machine: "q35", Trace: &TracePorts{Data: "d", Ctl: "c"}},
		{Machine: "pc", Trace: &TracePorts{Data: "d", Ctl: "c"}},
		{Trace: &TracePorts{Data: "d,x", Ctl: "c"}},
		{Trace: &TracePorts{Data: "d"}},
	} {
		if _, err := bad.QEMUArgs(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	// The control port alone: no data port, the same control port.
	c.Trace = &TracePorts{Ctl: "/tmp/c.sock"}
	args, err = c.QEMUArgs()
	if line := strings.Join(args, " "); err != nil || strings.Contains(line, "utdata") ||
		!strings.Contains(line, "-device virtio-serial-device,id=utser -chardev socket,id=utctl,path=/tmp/c.sock -device virtserialport,bus=utser.0,chardev=utctl,name=org.unitrace.ctl,nr=2") {
		t.Errorf("control port alone: %s, %v", line, err)
	}
	arm := Config{Arch: qemu.ArchArm64, Trace: &TracePorts{Data: "d", Ctl: "c"}}
	if _, err := arm.QEMUArgs(); err != nil {
		t.Errorf("arm64 virt: %v", err)
	}
}

func TestTraceOptions(t *testing.T) {
	env, err := TraceOptions{Globs: "syscall_*,sched_*", Backtrace: true, Ring: "64K", Mode: "flight"}.Env()
	want := []string{"unitrace.trace=syscall_*,sched_*", "unitrace.backtrace=1", "unitrace.ring=64K", "unitrace.mode=flight"}
	if err != nil || !slices.Equal(env, want) {
		t.Errorf("got %q, %v", env, err)
	}
	if env, err := (TraceOptions{}).Env(); err != nil || len(env) != 0 {
		t.Errorf("empty: %q %v", env, err)
	}
	env, err = TraceOptions{Sample: "20000", Force: true}.Env()
	if want := []string{"unitrace.sample=20000", "unitrace.sample.force=1"}; err != nil || !slices.Equal(env, want) {
		t.Errorf("sample: got %q, %v", env, err)
	}
	env, err = TraceOptions{OffCPU: true, OffCPUHz: 250, OffCPUMax: 5000}.Env()
	if want := []string{"unitrace.offcpu=1", "unitrace.offcpu.hz=250", "unitrace.offcpu.max=5000"}; err != nil || !slices.Equal(env, want) {
		t.Errorf("offcpu: got %q, %v", env, err)
	}
	for _, bad := range []TraceOptions{{Globs: "a,,b"}, {Globs: "a b"}, {Mode: "ring"}, {Ring: "3K"},
		{Sample: "0"}, {Sample: "-1"}, {Sample: "1k"}, {Sample: "20000"}, {Sample: "200000", Force: true}, {Force: true},
		{OffCPUHz: 100}, {OffCPU: true, OffCPUHz: 1001}, {OffCPU: true, OffCPUHz: -1}, {OffCPU: true, OffCPUMax: -5}} {
		if _, err := bad.Env(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func TestParseRingSize(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
	}{
		{"16K", 16 << 10}, {"1M", 1 << 20}, {"1m", 1 << 20}, {"1G", 1 << 30}, {"65536", 65536},
		{"8K", 0}, {"2G", 0}, {"3M", 0}, {"", 0}, {"K", 0}, {"-1M", 0}, {"99999999999999999999", 0}, {"17179869184K", 0},
	}
	for _, tt := range tests {
		got, err := ParseRingSize(tt.in)
		if got != tt.want || (err == nil) != (tt.want != 0) {
			t.Errorf("%q: %d, %v", tt.in, got, err)
		}
	}
}

// TestNetPort: the net port is the third virtserialport, QEMU connecting to the launcher's
// socket even when it serves the trace ports itself.
func TestNetPort(t *testing.T) {
	p := TracePorts{Data: "d", Ctl: "c", Server: true, Net: "n"}
	args, err := p.qemuArgs(machines[0])
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(args, " ")
	want := "-chardev socket,id=utnet,path=n -device virtserialport,bus=utser.0,chardev=utnet,name=org.unitrace.net,nr=3"
	if !strings.HasSuffix(got, want) {
		t.Errorf("args %q do not end with %q", got, want)
	}
	if _, err := (&TracePorts{Ctl: "c", Net: "a,b"}).qemuArgs(machines[0]); err == nil {
		t.Error("a comma in the net socket's path was accepted")
	}
}
