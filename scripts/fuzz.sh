#!/usr/bin/env bash
# fuzz.sh [FUZZTIME]: runs every fuzz target in the module for FUZZTIME each
# (default 10s). Targets are discovered with `go test -list`, so new ones are
# picked up without editing this file. All targets run; the script fails at
# the end if any of them failed.
#
# A real finding always writes its input to testdata/fuzz ("Failing input
# written to ...") or reports a panic or a failing call. Go 1.26's fuzzing
# coordinator also fails a target with a bare "context deadline exceeded" when
# -fuzztime runs out while a worker is mid-call on a loaded machine
# (a Go 1.26 bug, fixed in Go 1.27). Such a run is retried once; if it
# happens again, the target's corpus is replayed deterministically and, if
# that passes, the run is reported as the engine's flake instead of a failure.
set -euo pipefail
fuzztime=${1:-10s}
cd "$(dirname "$0")/.."
count=0
failed=()
flaked=()
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# fuzz runs one target ($1 package, $2 target, $3 build tags or -), teeing its output to $log;
# its status is go test's.
fuzz() {
	go test -tags "${3#-}" -run '^$' -fuzz "^$2\$" -fuzztime "$fuzztime" -fuzzminimizetime 1s "$1" 2>&1 | tee "$log"
	return "${PIPESTATUS[0]}"
}

# hostPackages lists the packages that have files only the host build compiles (build tag
# unitrace_host: the tracer's and the unwinder's host machine hooks, unwind/machine_host.go).
hostPackages() {
	grep -rl --include='*.go' '^//go:build.*unitrace_host' . | xargs -n1 dirname | sort -u
}

# targets lists "package tags target" for every fuzz target: those of the ordinary build, then
# those only the host build has.
targets() {
	for pkg in $(go list ./...); do
		for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
			echo "$pkg - $target"
		done
	done
	for dir in $(hostPackages); do
		plain=$(go test -list '^Fuzz' "$dir" | grep '^Fuzz' || true)
		for target in $(go test -tags unitrace_host -list '^Fuzz' "$dir" | grep '^Fuzz' || true); do
			grep -qx "$target" <<<"$plain" || echo "$(go list "$dir") unitrace_host $target"
		done
	done
}

# engineFlake says whether the failed run in $log was only the coordinator's
# deadline race: the deadline message, and no sign of a real finding.
engineFlake() {
	grep -q 'context deadline exceeded' "$log" &&
		! grep -q -e 'Failing input written' -e '^panic:' -e '    --- FAIL:' "$log"
}

while read -r pkg tags target; do
	echo "fuzz: $pkg $target for $fuzztime"
	count=$((count + 1))
	if fuzz "$pkg" "$target" "$tags"; then
		continue
	fi
	# A failure the fuzzer can reproduce leaves its input in testdata/fuzz, which the
	# retry replays first, so it fails again.
	echo "fuzz: $pkg $target failed; retrying once"
	if fuzz "$pkg" "$target" "$tags"; then
		continue
	fi
	if engineFlake && go test -tags "${tags#-}" -run "^$target\$" "$pkg" >/dev/null 2>&1; then
		echo "fuzz: $pkg $target: the fuzzing engine's deadline race (go.dev/issue/75804), no failing input; the corpus replays clean"
		flaked+=("$pkg $target")
		continue
	fi
	failed+=("$pkg $target")
done < <(targets)
if [ ${#flaked[@]} -gt 0 ]; then
	echo "fuzz: ${#flaked[@]} targets hit the engine's deadline race twice (not failures):"
	printf '  %s\n' "${flaked[@]}"
fi
if [ ${#failed[@]} -gt 0 ]; then
	echo "fuzz: ${#failed[@]} of $count targets failed:"
	printf '  %s\n' "${failed[@]}"
	exit 1
fi
echo "fuzz: $count targets fuzzed for $fuzztime each, no failures"
