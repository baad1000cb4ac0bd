#!/usr/bin/env bash
# make bench: examples/bench as a unitrace image next to the same program under Debian's Linux
# kernel (the /init of a one-file initramfs), booted in the same QEMU, interleaved
# (cmd/benchcompare). Installs the Debian cloud kernel if it is missing. The table goes to the
# terminal and, with DOC=FILE (make bench sets docs/measurements.md), between that file's bench
# markers.
#
#   scripts/bench.sh [-rounds N] [-machine q35] [other benchcompare flags]
set -euo pipefail
cd "$(dirname "$0")/.."
if ! ls /boot/vmlinuz-* >/dev/null 2>&1 || ! command -v cpio >/dev/null; then
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq linux-image-cloud-amd64 cpio
fi
kernel=$(ls /boot/vmlinuz-* | sort -V | tail -1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/root"
CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -o "$work/root/init" ./examples/bench
(cd "$work/root" && echo init | cpio -o -H newc --quiet > "$work/init.cpio")
go run ./cmd/mkimage -o "$work/bench.elf" ./examples/bench
note="$(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) CPUs, $(qemu-system-x86_64 --version | head -1), amd64 TCG, Linux $(basename "$kernel" | sed 's/^vmlinuz-//'):"
args=(-image "$work/bench.elf" -linux "$kernel" -initrd "$work/init.cpio" -note "$note")
if [[ -n "${DOC:-}" ]]; then
	args+=(-doc "$DOC")
fi
go run ./cmd/benchcompare "${args[@]}" "$@"
