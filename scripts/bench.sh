#!/usr/bin/env bash
# make bench: examples/bench as a unitrace image next to the same program under Debian's Linux
# kernel (the /init of a one-file initramfs), booted in the same QEMU, interleaved
# (cmd/benchcompare), on amd64 and then on arm64. Installs Debian's amd64 cloud kernel if it is
# missing, and unpacks its arm64 one into build/ (apt's multiarch: downloaded, not installed).
# The tables go to the terminal and, with DOC=FILE (make bench sets docs/measurements.md),
# between that file's bench markers.
#
#   ARCHES="amd64 arm64" scripts/bench.sh [-rounds N] [other benchcompare flags]
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# linuxKernel ARCH prints the path of Debian's cloud kernel for ARCH, and nothing else on its
# standard output (what it installs reports to standard error).
linuxKernel() {
	case $1 in
	amd64)
		if ! ls /boot/vmlinuz-* >/dev/null 2>&1; then
			{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq linux-image-cloud-amd64; } >&2
		fi
		ls /boot/vmlinuz-* | sort -V | tail -1
		;;
	arm64)
		local dir=build/debian-arm64
		if ! ls "$dir"/boot/vmlinuz-* >/dev/null 2>&1; then
			dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
			apt-get update -qq >&2
			local pkg
			pkg=$(apt-cache depends linux-image-cloud-arm64:arm64 | awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
			(cd "$work" && apt-get download -qq "$pkg") >&2
			mkdir -p "$dir"
			dpkg-deb -x "$work"/linux-image-*_arm64.deb "$dir" >&2
		fi
		ls "$dir"/boot/vmlinuz-* | sort -V | tail -1
		;;
	esac
}

if ! command -v cpio >/dev/null; then
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cpio
fi
for arch in ${ARCHES:-amd64 arm64}; do
	case $arch in
	amd64) qemu=qemu-system-x86_64 ;;
	arm64) qemu=qemu-system-aarch64 ;;
	*) echo "bench.sh: unknown arch $arch" >&2; exit 2 ;;
	esac
	kernel=$(linuxKernel "$arch")
	mkdir -p "$work/$arch/root"
	CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build -o "$work/$arch/root/init" ./examples/bench
	(cd "$work/$arch/root" && echo init | cpio -o -H newc --quiet > "$work/$arch/init.cpio")
	go run ./cmd/mkimage -arch "$arch" -o "$work/$arch/bench.elf" ./examples/bench
	note="$(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) CPUs, $($qemu --version | head -1), $arch TCG, Linux $(basename "$kernel" | sed 's/^vmlinuz-//'):"
	args=(-arch "$arch" -image "$work/$arch/bench.elf" -linux "$kernel" -initrd "$work/$arch/init.cpio" -note "$note")
	if [[ -n "${DOC:-}" ]]; then
		args+=(-doc "$DOC")
	fi
	go run ./cmd/benchcompare "${args[@]}" "$@"
done
