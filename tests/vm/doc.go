// Package vm holds the tests that boot real images in QEMU (go test
// ./tests/vm). They build examples/hello, the ground-truth workloads, the SMP
// workloads (examples/smp, booted with -smp 4), examples/stdin (fed through QEMU's
// standard input, the serial line) and a fake guest, boot them through github.com/hugelgupf/vmtest/qemu with the
// options of internal/vmconfig, and run the `unitrace run` launcher end to end.
// Every boot, tracer and sampler test runs on both guest architectures, as
// the subtests amd64 (microvm, and q35 for hello) and arm64 (virt), one after
// the other; the fake guest is amd64's alone. An architecture whose emulator
// is not installed is skipped (make deps installs both).
package vm
