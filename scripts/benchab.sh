#!/usr/bin/env bash
# benchab.sh -base REV [-arch A] [-rounds N] [-only W1,W2]
#
# Measures examples/bench's rows at commit REV next to the working tree: both images built with
# cmd/mkimage, booted alternately on the same QEMU (microvm on amd64, virt on arm64, TCG, one
# CPU), N rounds; each row prints the median of the rounds (each a fastest of the bench's
# batches), its range, and the ratio of the working tree's to REV's. For a change that must not
# slow a path down (docs/measurements.md, "The kernel in layers").
set -euo pipefail
cd "$(dirname "$0")/.."
arch=amd64
rounds=7
only=syscall_getppid,chan_pingpong
base=
while [ $# -gt 0 ]; do
	case $1 in
	-base) base=$2; shift 2 ;;
	-arch) arch=$2; shift 2 ;;
	-rounds) rounds=$2; shift 2 ;;
	-only) only=$2; shift 2 ;;
	*) echo "usage: $0 -base REV [-arch A] [-rounds N] [-only W1,W2]" >&2; exit 2 ;;
	esac
done
[ -n "$base" ] || { echo "usage: $0 -base REV [-arch A] [-rounds N] [-only W1,W2]" >&2; exit 2; }
work=$(mktemp -d /tmp/benchab.XXXXXX)
trap 'git worktree remove --force "$work/base" >/dev/null 2>&1; rm -rf "$work"' EXIT
git worktree add -q --detach "$work/base" "$base"
(cd "$work/base" && go run ./cmd/mkimage -arch "$arch" -o "$work/old.elf" ./examples/bench >/dev/null)
go run ./cmd/mkimage -arch "$arch" -o "$work/new.elf" ./examples/bench >/dev/null
boot() {
	local append="unitrace.stdin=null -- -only $only"
	case $arch in
	amd64) qemu-system-x86_64 -M microvm,isa-serial=on,rtc=on,pit=on,auto-kernel-cmdline=off -accel tcg -cpu max \
		-m 256M -smp 1 -nodefaults -no-reboot -display none -serial stdio -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		-kernel "$1" -append "$append" </dev/null 2>&1 || true ;;
	arm64) qemu-system-aarch64 -M virt -accel tcg -cpu max -m 256M -smp 1 -nodefaults -no-reboot -display none \
		-serial stdio -semihosting-config enable=on,target=native -kernel "$1" -append "$append" </dev/null 2>&1 || true ;;
	*) echo "benchab.sh: unknown arch $arch" >&2; exit 2 ;;
	esac
}
for r in $(seq "$rounds"); do
	for v in old new; do
		boot "$work/$v.elf" | awk -v v="$v" '$1 == "bench" { print v, $2, $3, $4 }' >> "$work/results"
	done
done
echo "$arch, $rounds rounds, $base against the working tree ($(git rev-parse --short HEAD)):"
awk '
	function median(a, n,    i, j, t) {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{ k = $1 SUBSEP $2; n[k]++; v[k, n[k]] = $3; unit[$2] = $4; rows[$2] = 1 }
	END {
		for (w in rows) {
			for (s = 1; s <= 2; s++) {
				side = s == 1 ? "old" : "new"; k = side SUBSEP w; m = n[k]
				lo = 1e300; hi = 0
				for (i = 1; i <= m; i++) { x[i] = v[k, i]; if (x[i] < lo) lo = x[i]; if (x[i] > hi) hi = x[i] }
				med[s] = median(x, m); rng[s] = sprintf("%.0f (%.0f-%.0f)", med[s], lo, hi)
			}
			printf "%-18s %-14s before %-22s after %-22s %.2f\n", w, unit[w], rng[1], rng[2], med[2] / med[1]
		}
	}' "$work/results"
