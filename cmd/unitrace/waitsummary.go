package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/unitrace/unitrace/goroutines"
	"github.com/unitrace/unitrace/internal/profile"
	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/trace/wire"
)

// summarizeWaits shows where the goroutines waited, from the off-CPU sweep's samples: the wait
// time by state and reason (the runtime's wait reason, or a system call's name and what its
// thread waited on in the kernel), how many goroutines waited so, and the share of all the
// time the goroutines spent off the CPUs. The image, when the recording names one that can be
// opened, names the runtime's wait reasons; otherwise they are numbers.
func summarizeWaits(w io.Writer, tr *tracefile.Trace, recs []tracefile.Rec) {
	type key struct{ state, reason, kernel string }
	total := map[key]uint64{}
	gs := map[key]map[uint64]bool{}
	var all uint64
	var im *profile.Image
	last := map[uint64]key{} // each goroutine's last record's key: what a GOROUTINE_SAME adds to
	for _, r := range recs {
		if id, ns, _, ok := r.GoroutineSame(); ok {
			if k, known := last[id]; known {
				total[k] += ns
				all += ns
			}
			continue
		}
		g, ok := r.Goroutine()
		if !ok {
			continue
		}
		if im == nil {
			im, _ = profile.OpenFor("", tr, false)
			if im == nil {
				im = &profile.Image{}
			}
		}
		k := key{state: goroutines.State(g.State.State()).String(), kernel: trace.StackWait(g.State.Wait()).String()}
		switch {
		case k.state == "waiting":
			if k.reason = im.WaitReason(g.State.Reason()); k.reason == "" {
				k.reason = "reason " + strconv.Itoa(int(g.State.Reason()))
			}
		case g.Syscall >= 0:
			k.reason = syscallName(tr, uint64(g.Syscall))
		}
		total[k] += g.PeriodNs
		all += g.PeriodNs
		last[g.ID] = k
		if gs[k] == nil {
			gs[k] = map[uint64]bool{}
		}
		gs[k][g.ID] = true
	}
	if all == 0 {
		return
	}
	keys := slices.SortedFunc(func(yield func(key) bool) {
		for k := range total {
			if !yield(k) {
				return
			}
		}
	}, func(a, b key) int {
		return cmp.Or(cmp.Compare(total[b], total[a]), cmp.Compare(a.state, b.state), cmp.Compare(a.reason, b.reason), cmp.Compare(a.kernel, b.kernel))
	})
	fmt.Fprintf(w, "\ngoroutines off the CPUs (the off-CPU sweep), %v in all:\n  %-9s %-28s %-12s %12s %7s %10s\n",
		time.Duration(all), "state", "reason", "kernel wait", "time", "share", "goroutines")
	for _, k := range keys {
		fmt.Fprintf(w, "  %-9s %-28s %-12s %12v %6.1f%% %10d\n", k.state, k.reason, k.kernel, time.Duration(total[k]),
			100*float64(total[k])/float64(all), len(gs[k]))
	}
}

// syscallName names system call nr of the recording's architecture.
func syscallName(tr *tracefile.Trace, nr uint64) string {
	arch := wire.ArchAMD64
	if tr.Hello != nil {
		arch = tr.Hello.Arch
	}
	return profile.SyscallName(arch, nr)
}
