#!/usr/bin/env bash
# examples/nethttp's HTTP server in a unitrace guest and in a Linux guest under the same QEMU,
# the same load at each from the host (cmd/netcompare; see docs/measurements.md). Installs QEMU,
# cpio and Debian's cloud kernel with apt-get when they are missing, and builds the Linux
# guest's initramfs: cmd/netcompare/linuxinit as /init, the workload built for Linux, and the
# virtio-net driver's modules in load order. Extra arguments go to cmd/netcompare.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v qemu-system-x86_64 >/dev/null 2>&1 || missing+=(qemu-system-x86)
command -v cpio >/dev/null 2>&1 || missing+=(cpio)
ls /boot/vmlinuz-* >/dev/null 2>&1 || missing+=(linux-image-cloud-amd64)
if [ ${#missing[@]} -gt 0 ]; then
	echo "netcompare.sh: installing ${missing[*]}" >&2
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
kernel=$(ls /boot/vmlinuz-* | sort -V | tail -1)
version=${kernel#/boot/vmlinuz-}
modules=/lib/modules/$version/kernel

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root/modules"
GOOS=linux GOARCH=amd64 CGO_ENABLED=0 go build -o "$root/init" ./cmd/netcompare/linuxinit
GOOS=linux GOARCH=amd64 CGO_ENABLED=0 go build -o "$root/workload" ./examples/nethttp
# virtio-net and what it needs, dependencies first (modinfo -F depends).
order="drivers/virtio/virtio_ring drivers/virtio/virtio drivers/virtio/virtio_pci_legacy_dev
drivers/virtio/virtio_pci_modern_dev drivers/virtio/virtio_pci net/core/failover
drivers/net/net_failover drivers/net/virtio_net"
for m in $order; do
	f=$(ls "$modules/$m".ko* | head -1)
	case $f in
	*.ko) cp "$f" "$root/modules/" ;;
	*.ko.xz) xz -dc "$f" > "$root/modules/$(basename "$m").ko" ;;
	*.ko.zst) zstd -qdc "$f" > "$root/modules/$(basename "$m").ko" ;;
	esac
	echo "$(basename "$m").ko" >> "$root/modules/order"
done
(cd "$root" && find . -mindepth 1 | sort | cpio -o -H newc --quiet > "$work/initrd.cpio")
go build -o "$work/unitrace" ./cmd/unitrace
go run ./cmd/netcompare -linux "$kernel" -initrd "$work/initrd.cpio" -unitrace "$work/unitrace" "$@"
