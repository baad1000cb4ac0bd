#!/usr/bin/env bash
# The same workload (examples/groundtruth syscall) profiled by perf inside a Linux guest and by
# unitrace's sampler, under the same QEMU, side by side (see docs/measurements.md). Installs
# QEMU, Debian's cloud kernel and linux-perf with apt-get when they are missing, builds the
# Linux guest's initramfs (our /init, the host's perf with its libraries, the workload built for
# Linux) and runs cmd/perfcompare. Extra arguments go to cmd/perfcompare (-duration, -freq,
# -keep DIR, -overhead ROUNDS, -uprobe ROUNDS).
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v qemu-system-x86_64 >/dev/null 2>&1 || missing+=(qemu-system-x86)
command -v cpio >/dev/null 2>&1 || missing+=(cpio)
ls /boot/vmlinuz-* >/dev/null 2>&1 || missing+=(linux-image-cloud-amd64)
command -v perf >/dev/null 2>&1 || missing+=(linux-perf)
if [ ${#missing[@]} -gt 0 ]; then
	echo "perfcompare.sh: installing ${missing[*]}" >&2
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
kernel=$(ls /boot/vmlinuz-* | sort -V | tail -1)

# /usr/bin/perf is either the ELF itself or a wrapper script that execs perf_VERSION.
perf=$(readlink -f "$(command -v perf)")
if ! head -c 4 "$perf" | grep -q ELF; then
	perf=$(ls /usr/bin/perf_* 2>/dev/null | sort -V | while read -r f; do
		head -c 4 "$f" | grep -q ELF && echo "$f"; done | tail -1)
	[ -n "$perf" ] || { echo "perfcompare.sh: no perf ELF behind $(command -v perf)" >&2; exit 1; }
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root/usr/bin" "$root/dev" "$root/proc" "$root/sys" "$root/tmp"
GOOS=linux GOARCH=amd64 CGO_ENABLED=0 go build -o "$root/init" ./cmd/perfcompare/linuxinit
GOOS=linux GOARCH=amd64 CGO_ENABLED=0 go build -o "$root/workload" ./examples/groundtruth
GOOS=linux GOARCH=amd64 CGO_ENABLED=0 go build -o "$root/probes" ./examples/probes
cp "$perf" "$root/usr/bin/perf"
# Every library ldd names, the dynamic loader included, copied as a file to the path ldd prints
# (in the initramfs /lib and /lib64 are plain directories, not merged-/usr symlinks).
if ldd "$perf" | grep -q 'not found'; then
	echo "perfcompare.sh: $perf is missing libraries:" >&2
	ldd "$perf" | grep 'not found' >&2
	exit 1
fi
ldd "$perf" | awk '/=>/ { if ($3 ~ /^\//) print $3; next } $1 ~ /^\// { print $1 }' | sort -u |
	while read -r lib; do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
(cd "$root" && find . -mindepth 1 | sort | cpio -o -H newc --quiet > "$work/initrd.cpio")

go build -o "$work/unitrace" ./cmd/unitrace
go run ./cmd/perfcompare -linux "$kernel" -initrd "$work/initrd.cpio" -unitrace "$work/unitrace" "$@"
