// Command tracebench measures the tracer from inside a unitrace guest (docs/measurements.md, "Tracer").
//
//	tracebench [flags] cycles   cost per emit in TSC cycles: a disabled tracepoint, an enabled
//	                            one without a backtrace, and one with a 32-frame backtrace.
//	                            Boot with a flight ring (unitrace run -mode flight) so nothing
//	                            needs draining while it measures.
//	tracebench [flags] stream   streaming bandwidth: emits -records fixed-size records as fast
//	                            as the stream ring and the agent's drain to virtio-serial allow,
//	                            with zero loss, then writes as many bytes to the 16550 console
//	                            and prints both times and their ratio. Boot with a stream ring
//	                            (unitrace run -ring 8M ...) and send the console to a file.
//
// Results are lines of the form "tracebench: NAME VALUE UNIT [VALUE UNIT ...]" (see
// scripts/tracebench.sh, which runs both parts). The tracer only exists when the image was
// booted with a tracer option and the trace device; otherwise tracebench says so and exits 2.
package main

import (
	"flag"
	"fmt"
	"os"

	_ "github.com/unitrace/unitrace/kernel"
	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/trace/record"
)

// The benchmark's own tracepoints, declared like the kernel's: static literals, registered in
// init. Each case has its own point, so the flags of one never affect another.
var (
	tpOff = trace.Point{Name: "tracebench_off", Format: "i=%d x=%x",
		Args: trace.ArgKinds{N: 2, Kinds: [trace.MaxArgs]record.Kind{record.KU64, record.KHex}}}
	tpOn = trace.Point{Name: "tracebench_on", Format: "i=%d x=%x",
		Args: trace.ArgKinds{N: 2, Kinds: [trace.MaxArgs]record.Kind{record.KU64, record.KHex}}}
	tpBacktrace = trace.Point{Name: "tracebench_backtrace", Format: "i=%d x=%x",
		Args: trace.ArgKinds{N: 2, Kinds: [trace.MaxArgs]record.Kind{record.KU64, record.KHex}}}
	tpStream = trace.Point{Name: "tracebench_stream", Format: "i=%d a=%x b=%x c=%x",
		Args: trace.ArgKinds{N: 4, Kinds: [trace.MaxArgs]record.Kind{record.KU64, record.KHex, record.KHex, record.KHex}}}

	points = [...]*trace.Point{&tpOff, &tpOn, &tpBacktrace, &tpStream}
)

func init() {
	for _, p := range points {
		if !trace.Register(p) {
			fmt.Fprintf(os.Stderr, "tracebench: cannot register %s\n", p.Name)
		}
	}
}

func main() {
	fs := flag.NewFlagSet("tracebench", flag.ExitOnError)
	n := fs.Int("n", 100000, "cycles: emits per repetition (disabled and enabled cases)")
	nbt := fs.Int("nbt", 20000, "cycles: emits per repetition with a backtrace")
	reps := fs.Int("reps", 5, "cycles: repetitions per case (the median is reported)")
	frames := fs.Int("frames", 32, "cycles: backtrace depth to measure")
	records := fs.Int("records", 100000, "stream: records to emit")
	burst := fs.Int("burst", 512, "stream: records per burst between ring checks")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: tracebench [flags] cycles|stream")
		fs.PrintDefaults()
	}
	fs.Parse(os.Args[1:])
	if fs.NArg() != 1 {
		fs.Usage()
		os.Exit(2)
	}
	b := trace.Boot()
	if trace.Ring(0).Size() == 0 {
		fmt.Println("tracebench: the tracer is not running: boot with a tracer option (unitrace run -mode flight, or -ring SIZE) on a machine with the trace device")
		os.Exit(2)
	}
	var err error
	switch fs.Arg(0) {
	case "cycles":
		err = cycles(b, *n, *nbt, *reps, *frames)
	case "stream":
		err = stream(*records, *burst)
	default:
		fs.Usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Println("tracebench: error:", err)
		os.Exit(1)
	}
}
