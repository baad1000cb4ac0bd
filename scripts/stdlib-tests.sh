#!/usr/bin/env bash
# The standard library's tests on the host and in a unitrace guest, side by side (see
# docs/measurements.md, "The standard library's tests in the guest").
#
#   scripts/stdlib-tests.sh [-arch amd64|arm64] [-m SIZE] [-smp N] [-timeout SECS] [-logs DIR]
#                           [-skip PKG=REGEXP ...] [PKG ...]
#
# For each package (default: the eight below) it runs
#   go test PKG -count=1 -test.short -test.v          (the host, this machine, whatever ARCH)
#   go run ./cmd/unitrace test -arch ARCH -m SIZE -smp N PKG -- -test.short -test.v
# (one guest at a time; SIZE and N default to unitrace's 256M and 1; each run is killed after
# SECS, default 900)
# keeps both outputs in DIR (default build/stdlib-tests/ARCH) and counts the top-level tests
# that passed, failed and were skipped: "--- PASS:", "--- FAIL:" and "--- SKIP:" lines at
# column 0 (subtests are indented). A run that ends early (a hang killed by the timeout, a
# kernel fault) counts what it printed before; its status is in the last column.
#
# -skip (repeatable) passes -test.skip REGEXP to PKG's guest run alone: for a test that ends the
# whole binary there (a panic, log.Fatal), so that the tests after it run; the skipped test
# still counts as passing on the host and not in the guest. GOFLAGS reaches both builds (for
# example GOFLAGS=-tags=timetzdata).
#
# Then it prints a table and, per package, the tests that passed on the host but not in the
# guest, with what the guest said of each (FAIL, SKIP, or nothing: never finished or never ran).
# Bash, coreutils, grep, sed and the go command; nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."

arch=amd64
timeout=900
logs=
mem=256M
smp=1
declare -A skips
while [[ $# -gt 0 ]]; do
	case $1 in
	-arch | -timeout | -logs | -m | -smp | -skip)
		[[ $# -ge 2 ]] || { echo "stdlib-tests.sh: $1 needs a value" >&2; exit 2; }
		;;&
	-arch) arch=$2; shift 2 ;;
	-timeout) timeout=$2; shift 2 ;;
	-logs) logs=$2; shift 2 ;;
	-m) mem=$2; shift 2 ;;
	-smp) smp=$2; shift 2 ;;
	-skip)
		[[ $2 == ?*=?* ]] || { echo "stdlib-tests.sh: -skip takes PKG=REGEXP, not $2" >&2; exit 2; }
		skips[${2%%=*}]=${skips[${2%%=*}]:+${skips[${2%%=*}]}|}${2#*=}
		shift 2 ;;
	-h | -help | --help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "stdlib-tests.sh: unknown flag $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
pkgs=("$@")
if [[ ${#pkgs[@]} -eq 0 ]]; then
	pkgs=(os io/fs path/filepath testing/fstest time sync strconv encoding/json)
fi
logs=${logs:-build/stdlib-tests/$arch}
mkdir -p "$logs"

# count KIND FILE: the top-level tests of that outcome in a go test -v output.
count() {
	local n
	n=$(grep -c "^--- $1: " "$2" || true)
	echo "${n:-0}"
}

# names KIND FILE: the names of those tests, one a line, sorted.
names() {
	{ grep "^--- $1: " "$2" || true; } | sed -E "s/^--- $1: ([^ ]+).*/\1/" | sort -u
}

# Build the launcher first, so that a compile error shows here rather than in a guest log.
go build -o /dev/null ./cmd/unitrace

rows=()
for pkg in "${pkgs[@]}"; do
	base=$logs/$(echo "$pkg" | tr / _)
	echo "== $pkg: host" >&2
	hstatus=0
	timeout "$timeout" go test "$pkg" -count=1 -test.short -test.v >"$base.host.log" 2>&1 || hstatus=$?
	echo "== $pkg: guest ($arch)" >&2
	gstatus=0
	testflags=(-test.short -test.v)
	if [[ -n ${skips[$pkg]:-} ]]; then
		testflags+=(-test.skip "${skips[$pkg]}")
	fi
	timeout "$timeout" go run ./cmd/unitrace test -arch "$arch" -m "$mem" -smp "$smp" -timeout "$((timeout - 30))s" "$pkg" \
		-- "${testflags[@]}" >"$base.guest.log" 2>&1 || gstatus=$?
	hp=$(count PASS "$base.host.log"); hf=$(count FAIL "$base.host.log"); hs=$(count SKIP "$base.host.log")
	gp=$(count PASS "$base.guest.log"); gf=$(count FAIL "$base.guest.log"); gs=$(count SKIP "$base.guest.log")
	ratio=n/a
	if [[ $hp -gt 0 ]]; then
		hundredths=$(((gp * 100 + hp / 2) / hp))
		ratio=$(printf '%d.%02d' $((hundredths / 100)) $((hundredths % 100)))
	fi
	rows+=("$pkg|$hp|$hf|$hs|$gp|$gf|$gs|$ratio|$gstatus")
done

echo
printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' package "host pass" "host fail" "host skip" \
	"guest pass" "guest fail" "guest skip" guest/host "guest exit"
echo '| --- | --- | --- | --- | --- | --- | --- | --- | --- |'
for r in "${rows[@]}"; do
	IFS='|' read -r -a c <<<"$r"
	printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "${c[@]}"
done

echo
for pkg in "${pkgs[@]}"; do
	base=$logs/$(echo "$pkg" | tr / _)
	lost=$(comm -23 <(names PASS "$base.host.log") <(names PASS "$base.guest.log"))
	[[ -z $lost ]] && continue
	echo "$pkg: passed on the host, not in the guest:"
	while read -r t; do
		how="no result (never finished, never started, or -skip)"
		if grep -q "^--- FAIL: $t " "$base.guest.log"; then
			how=FAIL
		elif grep -q "^--- SKIP: $t " "$base.guest.log"; then
			how=SKIP
		fi
		echo "  $t: $how"
	done <<<"$lost"
done
echo "(logs in $logs)"
