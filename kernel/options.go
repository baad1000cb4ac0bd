package kernel

import (
	"github.com/unitrace/unitrace/boot"
	"github.com/unitrace/unitrace/kernel/klog"
)

// Kernel options: unitrace.NAME[=VALUE] words on the command line, before "--".
//
//	unitrace.strace=1        print every system call on the console
//	unitrace.verbose=1       print boot details (clock, memory, boot time)
//	unitrace.debug=kfault    fault inside the kernel on the first system call (tests the report)
//	unitrace.debug=maskspin  the last CPU spins 3 s with interrupts masked once it is online
//	                         (tests the watchdog's probe, probe.go)
//	unitrace.watchdog=SECS   dump every stack when a runnable thread waits that long (watchdog.go)
//	unitrace.smp=N           run at most N CPUs (default: every CPU the machine has)
//	unitrace.fsmem=SIZE      the file system's capacity (files.go; default a quarter of memory)
//	unitrace.cwd=DIR         the program's working directory, absolute (files.go; default /)
//	unitrace.share=TAG:DIR[:ro]  mount the virtio-9p device with mount tag TAG on DIR (shares.go)
//	unitrace.vdso=0          no vDSO: every clock read is a system call (vdso.go)
//	unitrace.dns=ADDR[,ADDR] the nameservers of /etc/resolv.conf (netfiles.go)
//	unitrace.avx=0           amd64: no AVX, SSE only (arch/amd64/avx_amd64.go; ignored on arm64)
//	unitrace.unwind=fp       walks follow frame pointers alone, never the image's SP-delta
//	                         tables (unwind/chain.go; to compare, or to measure the tables' cost)
//	unitrace.stdin=null      the console has no input: its reads are at end of file, as
//	                         /dev/null's (console_input.go; unitrace run passes it when it
//	                         gives QEMU no input)
//
// and the tracer's options (tracing.go).
type options struct {
	verbose    bool
	strace     bool
	debugFault bool
	maskSpin   bool
	noVDSO     bool
	stdinNull  bool
	noAVX      bool
	fpOnly     bool
}

var (
	opts    options
	cmdline boot.Cmdline
)

// parseCommandLine splits the command line and reads the kernel options; a malformed command
// line stops the boot with a message naming the problem.
func parseCommandLine() {
	sampleOpts.hzWord = -1
	offcpuOpts.hzWord, offcpuOpts.nWord = -1, -1
	if err := cmdline.Parse(startInfo.Cmdline()); err != boot.OK {
		klog.Log().S("command line: ").S(err.String()).S(": ").S(cmdline.BadWord()).NL()
		panicBoot("malformed command line")
	}
	for i := 0; i < cmdline.NumOptions(); i++ {
		switch o := cmdline.Option(i); o {
		case "unitrace.strace=1":
			opts.strace = true
		case "unitrace.verbose=1":
			opts.verbose = true
		case "unitrace.debug=kfault":
			opts.debugFault = true
		case "unitrace.debug=maskspin":
			opts.maskSpin = true
		case "unitrace.vdso=0":
			opts.noVDSO = true
		case "unitrace.stdin=null":
			opts.stdinNull = true
		case "unitrace.avx=0":
			opts.noAVX = true
		case "unitrace.unwind=fp":
			opts.fpOnly = true
		default:
			if watchdogOption(o) || smpOption(o) || fsmemOption(o) || cwdOption(i, o) || shareOption(i, o) || dnsOption(i, o) {
				continue
			}
			if sampleOption(i, o) || offcpuOption(i, o) || wakersOption(o) {
				topts.wanted = true // samples travel through the tracer
				continue
			}
			if !traceOption(i, o) {
				klog.Log().S("unknown kernel option ignored: ").S(o).NL()
			}
		}
	}
}
