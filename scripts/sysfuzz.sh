#!/usr/bin/env bash
# sysfuzz.sh [-arch A] [-seed N] [-time D] [-threads N] [-cpus N] [-share] [-host]
#
# Runs the system-call fuzzer examples/sysfuzz in a unitrace guest (default amd64, 4 threads on
# 2 CPUs, 60s, seed 1), its scratch directory on the guest's /tmp, or with -share on a host
# directory shared at /mnt. With -host it runs the same program on the host's Linux instead: as
# the user nobody when this script runs as root (the fuzzer refuses root on the host), in a
# scratch directory of its own under /tmp. Prints the fuzzer's report; the status is the
# fuzzer's (the launcher's 70 when the kernel faulted).
set -euo pipefail
cd "$(dirname "$0")/.."
arch=amd64 seed=1 time=60s threads=4 cpus=2 share= host=
while [ $# -gt 0 ]; do
	case $1 in
	-arch) arch=$2; shift 2 ;;
	-seed) seed=$2; shift 2 ;;
	-time) time=$2; shift 2 ;;
	-threads) threads=$2; shift 2 ;;
	-cpus) cpus=$2; shift 2 ;;
	-share) share=1; shift ;;
	-host) host=1; shift ;;
	*) echo "usage: $0 [-arch A] [-seed N] [-time D] [-threads N] [-cpus N] [-share] [-host]" >&2; exit 2 ;;
	esac
done
args=(-seed "$seed" -time "$time" -threads "$threads")
if [ -n "$host" ]; then
	bin=$(mktemp -d /tmp/sysfuzz-bin.XXXXXX)
	dir=$(mktemp -d /tmp/sysfuzz-host.XXXXXX)
	trap 'rm -rf "$bin" "$dir"' EXIT
	go build -o "$bin/sysfuzz" ./examples/sysfuzz
	chmod 755 "$bin" "$bin/sysfuzz"
	if [ "$(id -u)" = 0 ]; then
		chown nobody:nogroup "$dir"
		setpriv --reuid=nobody --regid=nogroup --clear-groups "$bin/sysfuzz" -dir "$dir" "${args[@]}"
	else
		"$bin/sysfuzz" -dir "$dir" "${args[@]}"
	fi
	exit
fi
dir=/tmp
run=(go run ./cmd/unitrace run -arch "$arch" -smp "$cpus" -timeout 0)
if [ -n "$share" ]; then
	shared=$(mktemp -d /tmp/sysfuzz-share.XXXXXX)
	trap 'rm -rf "$shared"' EXIT
	run+=(-share "$shared:/mnt")
	dir=/mnt
fi
"${run[@]}" examples/sysfuzz -- -dir "$dir" "${args[@]}"
