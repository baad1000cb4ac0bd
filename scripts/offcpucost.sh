#!/usr/bin/env bash
# offcpucost.sh [-arch A]
#
# Measures what the off-CPU sweep and the wake-up records cost, in one run of each case on the
# same machine (default amd64, one CPU, TCG):
#   1. the sweep's cost per sweep and per goroutine with 10, 1,000 and 10,000 goroutines parked
#      (examples/waits idle N 5s with -offcpu at its default 100 Hz and cap), from the kernel's
#      exit report, and the recording's size;
#   2. a compute workload's throughput (examples/groundtruth hash, 5 s) alone, under the CPU
#      sampler at 100 Hz, and under the off-CPU sweep at 100 Hz: the ratios are the overheads;
#   3. the time per round trip of two goroutines handing a byte over blocking pipes (examples/
#      waits pingpong 20000: two wake-ups each) with and without -wakers: the difference over
#      two is the cost of one wake-up record.
set -euo pipefail
cd "$(dirname "$0")/.."
arch=amd64
while [ $# -gt 0 ]; do
	case $1 in
	-arch) arch=$2; shift 2 ;;
	*) echo "usage: $0 [-arch A]" >&2; exit 2 ;;
	esac
done
work=$(mktemp -d /tmp/offcpucost.XXXXXX)
trap 'rm -rf "$work"' EXIT
run() { go run ./cmd/unitrace run -arch "$arch" "$@"; }

echo "== the sweep, goroutines parked ($arch)"
for n in 10 1000 10000; do
	out=$(run -offcpu -o "$work/idle$n.utrace" -image "$work/waits.elf" ./examples/waits -- idle "$n" 5s 2>&1)
	echo "$n goroutines:"
	grep -E 'offcpu: |trace .*bytes' <<<"$out" | sed 's/^/  /'
done

echo "== a compute workload's throughput ($arch): units of work in 5 s"
for mode in none sample offcpu; do
	flags=()
	case $mode in
	sample) flags=(-sample 100 -o "$work/gt-sample.utrace") ;;
	offcpu) flags=(-offcpu -o "$work/gt-offcpu.utrace") ;;
	esac
	out=$(run "${flags[@]}" -image "$work/gt.elf" ./examples/groundtruth -- hash 5s 2>&1)
	echo "  $mode: $(grep -oE 'units=[0-9]+' <<<"$out" | head -1)"
done

echo "== wake-ups ($arch): pingpong 20000"
for mode in off on; do
	flags=()
	[ $mode = on ] && flags=(-wakers -o "$work/pp.utrace")
	out=$(run "${flags[@]}" -image "$work/waits.elf" ./examples/waits -- pingpong 20000 2>&1)
	echo "  wakers $mode: $(grep -E 'waits: pingpong' <<<"$out") $(grep -E 'wakers: ' <<<"$out" || true)"
done
