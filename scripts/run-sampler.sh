#!/usr/bin/env bash
# run-sampler.sh: what `make run-sampler` does. Builds examples/demo (or $APP) into a unitrace
# image, boots it under QEMU with the sampling profiler at $HZ from boot, streams the samples to
# the host while it runs, then prints the top functions and the call tree and writes the pprof
# profile, the folded stacks and the flame graph, and says how to open each.
#
# Environment: APP (main package, default examples/demo), ARCH (amd64 or arm64, default amd64),
# HZ (sampling rate, default 1000),
# ARGS (the program's arguments), UNITRACE (the unitrace binary, default: go run), OUT (directory
# for the image and the recording, default build/sampler), RESULTS (where the three results go,
# default the current directory): cpu.pb.gz, sampler.folded, sampler.svg.
set -euo pipefail
results=$(realpath "${RESULTS:-.}")
cd "$(dirname "$0")/.."
app=${APP:-examples/demo}
arch=${ARCH:-amd64}
hz=${HZ:-1000}
out=${OUT:-build/sampler}
unitrace=${UNITRACE:-go run ./cmd/unitrace}
mkdir -p "$out"
name=$(basename "$app")-$arch
image=$out/$name.elf
recording=$out/$name.utrace

echo "run-sampler: booting $app ($arch) with the sampler at $hz Hz (console below)"
status=0
# shellcheck disable=SC2086
$unitrace run -arch "$arch" -sample "$hz" -image "$image" -o "$recording" -pprof "$results/cpu.pb.gz" "$app" -- ${ARGS:-} || status=$?
if [ "$status" -ne 0 ]; then
	echo "run-sampler: $app ended with status $status" >&2
	exit 1
fi

echo
echo "== top functions (go tool pprof -top)"
go tool pprof -top -nodecount 15 "$image" "$results/cpu.pb.gz" 2>/dev/null | sed -n '/flat%/,$p'
echo
echo "== call tree (unitrace prof, 2% and up)"
$unitrace prof -min-hits 2% -max-depth 12 "$recording"
$unitrace folded -o "$results/sampler.folded" "$recording"
$unitrace flame -o "$results/sampler.svg" -title "$name, sampled at $hz Hz under QEMU" "$recording"

cat <<MSG

run-sampler: wrote, in $results:
  cpu.pb.gz        pprof profile:  go tool pprof -http=localhost:8080 $image cpu.pb.gz
                                   (or -top, -tree, -list hashBlocks, -disasm ...)
  sampler.svg      flame graph:    open it in a web browser (hover for counts)
  sampler.folded   folded stacks:  flamegraph.pl sampler.folded > flame.svg, or drop it on speedscope.app
and the recording $recording: unitrace summary|list|prof|annotate -func F $recording
MSG
