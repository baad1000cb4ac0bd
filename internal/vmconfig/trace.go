package vmconfig

import (
	"fmt"
	"strings"

	"github.com/unitrace/unitrace/kernel/sockwire"
	"github.com/unitrace/unitrace/sampler"
	"github.com/unitrace/unitrace/trace/ring"
)

// Names of the tracer's virtio-serial ports (docs/trace-format.md). Their
// port numbers start at 1: port 0 would be a virtconsole, which QEMU lets
// drop data when the host lags.
const (
	DataPortName = "org.unitrace.data"
	CtlPortName  = "org.unitrace.ctl"
	DataPortNr   = 1
	CtlPortNr    = 2
	// NetPortName carries the guest's socket calls to the launcher (kernel/sockwire).
	NetPortName = sockwire.PortName
	NetPortNr   = 3
)

// TracePorts puts the tracer's two ports on unix sockets, or the control port alone.
type TracePorts struct {
	// Data is the socket path of org.unitrace.data; "" leaves the data port out, for a run
	// without the tracer whose control port only carries the launcher's signals.
	Data string
	Ctl  string // socket path of org.unitrace.ctl
	// Server makes QEMU listen on the sockets (server=on,wait=off) for a
	// tool to attach later; otherwise QEMU connects to sockets the
	// launcher listens on before it starts QEMU.
	Server bool
	// Net is the socket path of org.unitrace.net, where the launcher serves the guest's
	// sockets (QEMU connects to it, -sockets or not); "" leaves networking out.
	Net string
}

// qemuArgs returns the device and chardev options of the ports on machine m, which needs a
// virtio-mmio bus for virtio-serial-device.
func (p *TracePorts) qemuArgs(m machine) ([]string, error) {
	if !m.virtioMMIO {
		return nil, fmt.Errorf("tracing needs a virtio-mmio bus: machine %q has none (use -machine microvm on amd64, virt on arm64)", m.name)
	}
	if p.Ctl == "" {
		return nil, fmt.Errorf("trace ports need the control port's socket path")
	}
	for _, s := range []string{p.Data, p.Ctl, p.Net} {
		if strings.ContainsRune(s, ',') {
			return nil, fmt.Errorf("socket path %q contains a comma, which QEMU's option syntax cannot carry", s)
		}
	}
	server := ""
	if p.Server {
		server = ",server=on,wait=off"
	}
	args := []string{"-device", "virtio-serial-device,id=utser"}
	if p.Data != "" {
		args = append(args,
			"-chardev", "socket,id=utdata,path="+p.Data+server,
			"-device", fmt.Sprintf("virtserialport,bus=utser.0,chardev=utdata,name=%s,nr=%d", DataPortName, DataPortNr))
	}
	args = append(args,
		"-chardev", "socket,id=utctl,path="+p.Ctl+server,
		"-device", fmt.Sprintf("virtserialport,bus=utser.0,chardev=utctl,name=%s,nr=%d", CtlPortName, CtlPortNr))
	if p.Net != "" {
		args = append(args,
			"-chardev", "socket,id=utnet,path="+p.Net,
			"-device", fmt.Sprintf("virtserialport,bus=utser.0,chardev=utnet,name=%s,nr=%d", NetPortName, NetPortNr))
	}
	return args, nil
}

// TraceOptions are the tracer's boot options, passed on the guest command
// line before "--".
type TraceOptions struct {
	Globs     string // tracepoints enabled at boot: GLOB[,GLOB...]
	Backtrace bool   // the global log-backtrace option
	Ring      string // bytes per CPU ring: a power of two, 16K..1G, K/M/G suffixes
	Mode      string // "stream" or "flight"
	Sample    string // sampler rate in Hz from boot ("" for none)
	Force     bool   // allow sampler rates above 10 kHz (up to 100 kHz)
	// OffCPU turns the kernel's off-CPU sweep on from boot: every goroutine not on a CPU,
	// OffCPUHz times a second (0: the kernel's default, 100), at most OffCPUMax a sweep (0:
	// the kernel's default).
	OffCPU              bool
	OffCPUHz, OffCPUMax int
	// Wakers has the kernel record every wake-up of a thread blocked in it, with the waker.
	Wakers bool
}

// Off-CPU sweep limits, the kernel's (kernel/observe/offcpu.go).
const (
	MaxOffCPUHz  = 1000
	MaxOffCPUMax = 1 << 24
)

// Ring size limits.
const (
	MinRing = ring.MinSize
	MaxRing = ring.MaxSize
)

// Env returns the unitrace.* words for the options that are set.
func (o TraceOptions) Env() ([]string, error) {
	var env []string
	if o.Globs != "" {
		for _, g := range strings.Split(o.Globs, ",") {
			if g == "" {
				return nil, fmt.Errorf("-trace %q has an empty glob", o.Globs)
			}
		}
		env = append(env, "unitrace.trace="+o.Globs)
	}
	if o.Backtrace {
		env = append(env, "unitrace.backtrace=1")
	}
	if o.Ring != "" {
		if _, err := ParseRingSize(o.Ring); err != nil {
			return nil, err
		}
		env = append(env, "unitrace.ring="+o.Ring)
	}
	switch o.Mode {
	case "":
	case "stream", "flight":
		env = append(env, "unitrace.mode="+o.Mode)
	default:
		return nil, fmt.Errorf("-mode %q: want stream or flight", o.Mode)
	}
	if o.Sample != "" {
		if _, e := sampler.ParseHz(o.Sample, o.Force); e != sampler.OK {
			return nil, fmt.Errorf("-sample %q: %s", o.Sample, e)
		}
		env = append(env, "unitrace.sample="+o.Sample)
	}
	switch {
	case o.OffCPU:
		env = append(env, "unitrace.offcpu=1")
	case o.OffCPUHz != 0 || o.OffCPUMax != 0:
		return nil, fmt.Errorf("-offcpu-hz and -offcpu-max need -offcpu")
	}
	if o.OffCPUHz != 0 {
		if o.OffCPUHz < 1 || o.OffCPUHz > MaxOffCPUHz {
			return nil, fmt.Errorf("-offcpu-hz %d: want 1..%d", o.OffCPUHz, MaxOffCPUHz)
		}
		env = append(env, fmt.Sprintf("unitrace.offcpu.hz=%d", o.OffCPUHz))
	}
	if o.OffCPUMax != 0 {
		if o.OffCPUMax < 1 || o.OffCPUMax > MaxOffCPUMax {
			return nil, fmt.Errorf("-offcpu-max %d: want 1..%d", o.OffCPUMax, MaxOffCPUMax)
		}
		env = append(env, fmt.Sprintf("unitrace.offcpu.max=%d", o.OffCPUMax))
	}
	if o.Wakers {
		env = append(env, "unitrace.wakers=1")
	}
	if o.Force {
		if o.Sample == "" {
			return nil, fmt.Errorf("-sample-force needs -sample HZ")
		}
		env = append(env, "unitrace.sample.force=1")
	}
	for _, w := range env {
		if err := oneWord("trace option", w); err != nil {
			return nil, err
		}
	}
	return env, nil
}

// ParseRingSize parses a ring size: a number with an optional K, M or G
// suffix (powers of 1024), a power of two between MinRing and MaxRing.
func ParseRingSize(s string) (uint64, error) {
	v, ok := ring.ParseSize(s)
	if !ok {
		return 0, fmt.Errorf("ring size %q: want a power of two from 16K to 1G", s)
	}
	return v, nil
}
