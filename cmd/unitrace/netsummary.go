package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/kernel/sockwire"
)

// summarizeSockets shows where the guest's socket calls spent their time with the launcher
// (net_rpc: the call, the socket, its round trip, its result), by call: how many, their total
// and percentile round trips, how many failed (EAGAIN and EINPROGRESS counted apart: a
// non-blocking socket's way of saying "not yet") and the bytes sent and received. Busiest first.
func summarizeSockets(w io.Writer, tr *tracefile.Trace, recs []tracefile.Rec) {
	type stat struct {
		lat           []int64
		total         int64
		notYet, fails int
		bytes         uint64
	}
	const eagain, einprogress = 11, 115
	by := map[sockwire.Op]*stat{}
	for _, r := range recs {
		if tr.Name(&r.Record) != "net_rpc" || len(r.Args) < 4 {
			continue
		}
		op := sockwire.Op(r.Args[0])
		s := by[op]
		if s == nil {
			s = &stat{}
			by[op] = s
		}
		lat, res := int64(r.Args[2]), int64(r.Args[3])
		s.lat = append(s.lat, lat)
		s.total += lat
		switch {
		case res == -eagain || res == -einprogress:
			s.notYet++
		case res < 0:
			s.fails++
		case op == sockwire.OpSend || op == sockwire.OpRecv:
			s.bytes += uint64(res)
		}
	}
	if len(by) == 0 {
		return
	}
	ops := slices.SortedFunc(func(yield func(sockwire.Op) bool) {
		for op := range by {
			if !yield(op) {
				return
			}
		}
	}, func(a, b sockwire.Op) int { return cmp.Or(cmp.Compare(by[b].total, by[a].total), cmp.Compare(a, b)) })
	fmt.Fprintf(w, "\nsockets (net_rpc round trips to the launcher):\n  %-12s %8s %12s %12s %12s %8s %8s %12s\n",
		"call", "count", "total", "p50", "p99", "not yet", "errors", "bytes")
	for _, op := range ops {
		s := by[op]
		slices.Sort(s.lat)
		fmt.Fprintf(w, "  %-12s %8d %12v %12v %12v %8d %8d %12d\n", op, len(s.lat), time.Duration(s.total),
			time.Duration(percentile(s.lat, 50)), time.Duration(percentile(s.lat, 99)), s.notYet, s.fails, s.bytes)
	}
}
