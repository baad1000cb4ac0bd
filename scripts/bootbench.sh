#!/usr/bin/env bash
# Boot time of a unitrace image next to Debian's Linux kernel booting a one-file initramfs under
# the same QEMU (see docs/measurements.md). Installs the Debian cloud kernel if it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
machine=${MACHINE:-q35}
if ! ls /boot/vmlinuz-* >/dev/null 2>&1; then
	apt-get update -qq && apt-get install -y -qq linux-image-cloud-amd64
fi
kernel=$(ls /boot/vmlinuz-* | sort -V | tail -1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/root"
CGO_ENABLED=0 go build -o "$work/root/init" ./cmd/bootbench/linuxinit
(cd "$work/root" && echo init | cpio -o -H newc --quiet > "$work/init.cpio")
go run ./cmd/mkimage -o "$work/syscallbench.elf" ./examples/syscallbench
go run ./cmd/bootbench -image "$work/syscallbench.elf" -linux "$kernel" -initrd "$work/init.cpio" -machine "$machine" "$@"
