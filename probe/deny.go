package probe

// The deny list: code a breakpoint must never be put in, because the breakpoint's own handling
// runs it (a hit there would recurse) or because it runs where a trap cannot be taken. A name
// is denied when it starts with one of these prefixes. The kernel checks every site's function
// against it as well as the host, as Linux's NOKPROBE_SYMBOL list does.
var denied = [...]string{
	"github.com/unitrace/unitrace/kernel.",                   // trap entry and dispatch, the trap's sequence
	"github.com/unitrace/unitrace/kernel/dprobe.",            // the probe handler
	"github.com/unitrace/unitrace/kernel/core.",              // the lock, CPU-locals, cross-CPU requests
	"github.com/unitrace/unitrace/kernel/machine.",           // the hardware hooks the handler uses
	"github.com/unitrace/unitrace/kernel/observe.",           // the tracer's and sampler's glue
	"github.com/unitrace/unitrace/arch/",                     // entry stubs, interrupt masking, page tables
	"github.com/unitrace/unitrace/probe.",                    // decoding and emulation
	"github.com/unitrace/unitrace/trace.",                    // the emit path
	"github.com/unitrace/unitrace/trace/ring.",               // the rings
	"github.com/unitrace/unitrace/trace/record.",             // the record encoders
	"github.com/unitrace/unitrace/unwind.",                   // the backtrace's walk
	"github.com/unitrace/unitrace/symtab.",                   // the kernel's symbol lookups
	"github.com/unitrace/unitrace/goroutines.",               // the goroutine layout the record reads
	"runtime.morestack", "runtime.rt0_go", "runtime.asminit", // the stack check's target, boot
}

// Denied reports whether a probe may not go in the function called name, and the deny list's
// entry that matched.
//
//go:nosplit
func Denied(name []byte) (string, bool) {
	for _, p := range denied {
		if len(name) >= len(p) && string(name[:len(p)]) == p {
			return p, true
		}
	}
	return "", false
}
