// Package vm holds the tests that boot real images in QEMU (go test
// ./tests/vm). They build examples/hello and a fake guest, boot them through
// github.com/hugelgupf/vmtest/qemu with the options of tools/vmconfig, and
// run the `unitrace run` launcher end to end. They skip when QEMU is not
// installed (make deps installs it).
package vm
