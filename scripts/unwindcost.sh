#!/usr/bin/env bash
# unwindcost.sh [-arch A] [-rounds N]
#
# Measures what the table steps (unwind/chain.go) cost and what they recover, on the demo
# (examples/demo: JSON, sort, SHA-256 with AVX2 on amd64, matrix) sampled at 1000 Hz, booted
# alternately with unitrace.unwind=fp (frame pointers alone) and without it (the default: table
# steps where the frame pointer cannot be trusted), N rounds of each on the same machine:
#   - the sampler handler's cost per sample, median and p99, from the kernel's exit report
#     (the handler walks the stack: the difference is the table steps' cost);
#   - the share of samples whose stack reaches runtime.goexit or main.main (a goroutine's
#     whole stack, or the main goroutine's);
#   - the share of the SHA-256 block function's samples that sit under main.hashWorker.
set -euo pipefail
cd "$(dirname "$0")/.."
arch=amd64
rounds=2
while [ $# -gt 0 ]; do
	case $1 in
	-arch) arch=$2; shift 2 ;;
	-rounds) rounds=$2; shift 2 ;;
	*) echo "usage: $0 [-arch A] [-rounds N]" >&2; exit 2 ;;
	esac
done
work=$(mktemp -d /tmp/unwindcost.XXXXXX)
trap 'rm -rf "$work"' EXIT
go build -o "$work/unitrace" ./cmd/unitrace
for r in $(seq "$rounds"); do
	for mode in fp tables; do
		opt=()
		[ $mode = fp ] && opt=(unitrace.unwind=fp)
		out=$("$work/unitrace" run -arch "$arch" -sample 1000 -image "$work/demo.elf" -o "$work/$mode.utrace" ./examples/demo "${opt[@]}" 2>&1)
		cost=$(grep -oE 'median [0-9]+ cycles \([0-9]+ ns\), p99 [0-9]+ cycles \([0-9]+ ns\)' <<<"$out")
		"$work/unitrace" folded -o "$work/$mode.folded" "$work/$mode.utrace"
		shares=$(awk '{
			n = $NF; total += n
			if ($0 ~ /(^|;)(runtime\.goexit|main\.main)(;| )/) whole += n
			if ($0 ~ /sha256\.block(AVX2|SHANI|AMD64|Generic)?[; ]/) { block += n; if ($0 ~ /main\.hashWorker;/) under += n }
		} END {
			printf "whole stacks %.1f%% of %d; block function under main.hashWorker %.1f%% of %d", 100*whole/total, total, (block ? 100*under/block : 0), block
		}' "$work/$mode.folded")
		printf '%-7s round %d: handler %s; %s\n' "$mode" "$r" "$cost" "$shares"
	done
done
