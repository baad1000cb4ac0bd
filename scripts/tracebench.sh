#!/usr/bin/env bash
# Tracer measurements (docs/measurements.md, "Tracer"), all in one run so the ratios compare like
# with like:
#   1. host benchmarks of the emit path (go test -tags unitrace_host -bench Emit ./trace/);
#   2. cycles per emit inside the guest (examples/tracebench cycles, on a flight ring);
#   3. streaming bandwidth over virtio-serial with zero loss against the 16550 console in the
#      same boot (examples/tracebench stream), and `unitrace check` on that recording.
# Prints a summary table; the raw outputs stay in $WORK (printed at the end).
#
# Environment: ARCH (guest architecture, amd64 or arm64; the host benchmarks are the host's),
# COUNT (host -count, 5), RECORDS (stream records of 56 bytes, 200000), RING
# (stream ring, 1M: the stream is ten times larger, so the pacing has to work), TIMEOUT (per
# boot, 10m), WORK (output directory; default a new temporary one), TRACEBENCH_ARGS (flags for
# the cycles part, e.g. "-n 200000").
set -uo pipefail
cd "$(dirname "$0")/.."
count=${COUNT:-5}
records=${RECORDS:-200000}
ring=${RING:-1M}
timeout=${TIMEOUT:-10m}
arch=${ARCH:-amd64}
work=${WORK:-$(mktemp -d -t tracebench.XXXXXX)}
mkdir -p "$work"
failed=0

echo "tracebench: building the unitrace tool" >&2
go build -o "$work/unitrace" ./cmd/unitrace || exit 1

echo "tracebench: host benchmarks (-count $count)" >&2
if ! go test -tags unitrace_host -run '^$' -bench Emit -count "$count" ./trace/ >"$work/host.txt" 2>&1; then
	echo "tracebench: host benchmarks failed (see $work/host.txt)" >&2
	failed=1
fi

# The console (standard output) goes to a file: the stream part floods it on purpose.
boot() { # name, unitrace run arguments...
	local name=$1
	shift
	echo "tracebench: booting examples/tracebench $name" >&2
	"$work/unitrace" run -arch "$arch" -timeout "$timeout" -image "$work/tracebench-$arch.elf" -o "$work/$name.utrace" "$@" \
		>"$work/$name.out" 2>"$work/$name.err"
	local rc=$?
	if [ $rc -ne 0 ]; then
		echo "tracebench: $name boot exited with status $rc:" >&2
		grep -a 'tracebench: error\|unitrace run:' "$work/$name.out" "$work/$name.err" >&2
		failed=1
	fi
}
# shellcheck disable=SC2086 # TRACEBENCH_ARGS is a list of words
boot cycles -mode flight ./examples/tracebench -- ${TRACEBENCH_ARGS:-} cycles
boot stream -ring "$ring" -mode stream ./examples/tracebench -- -records "$records" stream

echo "tracebench: unitrace check $work/stream.utrace" >&2
"$work/unitrace" check "$work/stream.utrace" >"$work/check.txt" 2>&1
check=$?

# median NAME: the median ns/op of BenchmarkNAME over the -count runs.
median() {
	awk -v b="Benchmark$1" '$1 ~ "^"b"(-[0-9]+)?$" { for (i = 2; i < NF; i++) if ($(i+1) == "ns/op") print $i }' "$work/host.txt" |
		sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR+1)/2)]; else print "-" }'
}
# The console turns "\n" into "\r\n": the parsers drop the "\r".
# guest NAME: "CYCLES cycles (NS ns)" from a "tracebench: NAME C cycles/emit N ns/emit" line.
guest() {
	awk -v n="$1" '{ sub(/\r$/, "") } $1 == "tracebench:" && $2 == n { print $3 " cycles (" $5 " ns)"; found = 1 } END { if (!found) print "-" }' "$work/cycles.out"
}
field() { # NAME UNIT: the value before UNIT on the stream part's "tracebench: NAME ..." line
	awk -v n="$1" -v u="$2" '{ sub(/\r$/, "") } $1 == "tracebench:" && $2 == n { for (i = 4; i <= NF; i++) if ($i == u) { print $(i-1); found = 1 } } END { if (!found) print "-" }' "$work/stream.out"
}

lost=$(sed -n 's/.*+ lost \([0-9]*\) .*+ missing \([0-9]*\)$/\1 \2/p' "$work/check.txt" | awk '{ l += $1; m += $2 } END { if (NR) print l " lost, " m " missing"; else print "-" }')
if [ $check -eq 0 ]; then verdict="OK"; else verdict="FAILED (status $check)"; failed=1; fi

cat <<EOF

| emit path | host, native (median of $count) | guest, QEMU TCG (median of the runs) |
| --- | --- | --- |
| empty call (scale) | - | $(guest call) |
| disabled tracepoint | $(median EmitDisabled) ns | $(guest disabled) |
| enabled, no backtrace | $(median EmitEnabled) ns | $(guest enabled) |
| enabled, 32-frame backtrace | $(median EmitBacktrace32) ns | $(guest backtrace32) |

| streaming, one boot | bytes | seconds | MB/s |
| --- | --- | --- | --- |
| trace records over virtio-serial (first emit to ring drained) | $(field stream bytes) | $(field stream s) | $(field stream MB/s) |
| the same bytes written to the console UART (16550 on amd64, PL011 on arm64) | $(field uart bytes) | $(field uart s) | $(field uart MB/s) |

virtio-serial vs UART: $(field stream_vs_uart x)x faster; $(field stream records) records, $(field stream dropped) dropped in the guest;
unitrace check: $verdict ($lost)

outputs: $work
EOF
exit $failed
