package kernel

import (
	"github.com/unitrace/unitrace/boot"
	"github.com/unitrace/unitrace/kernel/dev/shares"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/observe"
	"github.com/unitrace/unitrace/kernel/options"
)

// Kernel options: unitrace.NAME[=VALUE] words on the command line, before "--". The kernel's own
// flags are options.Flags'; the features' options are parsed where each feature lives:
//
//	unitrace.watchdog=SECS   dump every stack when a runnable thread waits that long (watchdog.go)
//	unitrace.smp=N           run at most N CPUs (default: every CPU the machine has)
//	unitrace.fsmem=SIZE      the file system's capacity (files.go; default a quarter of memory)
//	unitrace.cwd=DIR         the program's working directory, absolute (files.go; default /)
//	unitrace.share=TAG:DIR[:ro]  mount the virtio-9p device with mount tag TAG on DIR (shares.go)
//	unitrace.dns=ADDR[,ADDR] the nameservers of /etc/resolv.conf (netfiles.go)
//
// and the tracer's, the sampler's and the off-CPU sampler's (tracing.go, sampling.go, offcpu.go).

// parseCommandLine splits the command line and reads the kernel options; a malformed command
// line stops the boot with a message naming the problem.
func parseCommandLine() {
	observe.SampleOpts.HzWord = -1
	observe.OffCPUOpts.HzWord, observe.OffCPUOpts.NWord = -1, -1
	if err := options.Cmdline.Parse(options.Boot.Cmdline()); err != boot.OK {
		klog.Log().S("command line: ").S(err.String()).S(": ").S(options.Cmdline.BadWord()).NL()
		klog.BootFault("malformed command line")
	}
	for i := 0; i < options.Cmdline.NumOptions(); i++ {
		o := options.Cmdline.Option(i)
		switch {
		case options.Kernel.Set(o), observe.WatchdogOption(o), smpOption(o), fsmemOption(o), cwdOption(i, o),
			shares.Option(i, o), dnsOption(i, o):
		case observe.SampleOption(i, o), observe.OffCPUOption(i, o), observe.WakersOption(o):
			observe.TraceOpts.Wanted = true // samples travel through the tracer
		case !observe.TraceOption(i, o):
			klog.Log().S("unknown kernel option ignored: ").S(o).NL()
		}
	}
}
