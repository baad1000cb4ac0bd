package agent

import (
	"encoding/binary"
	"runtime"
	"sync"
	"syscall"
	"unsafe"

	"github.com/unitrace/unitrace/probe"
	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/trace/ctl"
)

// The dynamic probes' commands: the host stages a probe's sites one command each, arms them
// together, and removes them; the kernel checks every site (trace.CtlProbeSite says how).

// probeErrors say why the kernel refused a probe command, by its errno.
var probeErrors = map[syscall.Errno]string{
	syscall.EINVAL: "malformed site",
	syscall.EBUSY:  "the probe is armed: remove it before adding sites",
	syscall.ENOENT: "no function of the running image holds the site",
	syscall.EPERM:  "the function is on the kernel's deny list (the probe's own handling runs it)",
	syscall.EEXIST: "the address has a probe already",
	syscall.EIO:    "the code at the address is not the site's (another image, or not an instruction's start)",
	syscall.ENOSPC: "the kernel's probe tables are full",
	syscall.ESRCH:  "no such probe",
	syscall.ENODEV: "the tracer is not running",
}

func probeCmd(c *ctl.Command, resp *response) ctl.Err {
	var v uint64
	var err error
	switch c.Op {
	case ctl.OpProbeSite:
		err = kernelProbeSite(c.Probe, c.Site[:c.SiteLen])
	case ctl.OpProbeArm:
		stack := uint64(0)
		if c.Stack {
			stack = 1
		}
		if v, err = kernelCtlValue(trace.CtlProbeArm, uint64(c.Probe), stack); err == nil {
			resp.Sites = &v
		}
	case ctl.OpProbeDel:
		if v, err = kernelCtlValue(trace.CtlProbeDel, uint64(c.Probe), 0); err == nil {
			resp.Hits = &v
		}
	case ctl.OpProbeNew:
		if v, err = kernelCtlValue(trace.CtlProbeNew, 0, 0); err == nil {
			resp.Probe = &v
		}
	case ctl.OpProbeList:
		var sites []probeSiteInfo
		if sites, err = kernelProbeList(); err == nil {
			resp.ProbeSites = sites
			if resp.ProbeSites == nil {
				resp.ProbeSites = []probeSiteInfo{}
			}
		}
	}
	if err == nil {
		return ctl.ErrNone
	}
	if e, ok := err.(syscall.Errno); ok {
		if msg, ok := probeErrors[e]; ok {
			resp.detail = msg
		} else {
			resp.detail = e.Error()
		}
	}
	return ctl.ErrProbe
}

// kernelProbeSite hands the kernel one site of probe n (trace.CtlProbeSite). The kernel reads
// the site during the call: the pointer is converted in the call expression, as package unsafe
// requires, and the bytes are kept alive until it returns.
func kernelProbeSite(n uint8, site []byte) error {
	if len(site) == 0 {
		return syscall.EINVAL
	}
	buf := make([]byte, max(len(site), probe.SiteSize)) // a short site reads as zeros past its end
	copy(buf, site)
	_, _, errno := syscall.Syscall(trace.SysCtl, trace.CtlProbeSite, uintptr(n), uintptr(unsafe.Pointer(&buf[0])))
	runtime.KeepAlive(buf)
	if errno != 0 {
		return errno
	}
	return nil
}

// probeSiteInfo is one probe site in a probe.list reply.
type probeSiteInfo struct {
	Probe  uint16 `json:"probe"`
	Return bool   `json:"return,omitempty"`
	Armed  bool   `json:"armed"`
	PC     uint64 `json:"pc"`
	Hits   uint64 `json:"hits"`
}

// maxProbeSites bounds a probe.list reply: the kernel's site table (kernel/dprobe.MaxSites).
const maxProbeSites = 512

// kernelProbeList asks the kernel for its probe sites (trace.CtlProbeList).
func kernelProbeList() ([]probeSiteInfo, error) {
	buf := make([]byte, maxProbeSites*trace.ProbeListEntrySize)
	n, _, errno := syscall.Syscall(trace.SysCtl, trace.CtlProbeList, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	runtime.KeepAlive(buf)
	if errno != 0 {
		return nil, errno
	}
	var out []probeSiteInfo
	for i := 0; i < int(n) && (i+1)*trace.ProbeListEntrySize <= len(buf); i++ {
		e := buf[i*trace.ProbeListEntrySize:]
		out = append(out, probeSiteInfo{Probe: binary.LittleEndian.Uint16(e), Return: probe.Kind(e[2]) == probe.KindReturn,
			Armed: e[3] != 0, PC: binary.LittleEndian.Uint64(e[8:]), Hits: binary.LittleEndian.Uint64(e[16:])})
	}
	return out, nil
}

// The hold: with unitrace.hold=1 the kernel's init function waits (WaitResume) until the host's
// resume command.
var (
	resumed    = make(chan struct{})
	resumeOnce sync.Once
)

// WaitResume blocks until the host sent resume.
func WaitResume() { <-resumed }

func resume() { resumeOnce.Do(func() { close(resumed) }) }
