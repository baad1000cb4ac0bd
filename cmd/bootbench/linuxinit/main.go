//go:build linux

// Command linuxinit is the one-file initramfs of bootbench's Linux baseline: as /init it prints
// the same marker line as examples/syscallbench (with CLOCK_MONOTONIC, the time since the Linux
// kernel started) and powers the machine off.
package main

import (
	"fmt"
	"syscall"
	"unsafe"
)

func main() {
	var ts syscall.Timespec
	syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, 1, uintptr(unsafe.Pointer(&ts)), 0)
	fmt.Printf("boot_ns %d\n", ts.Nano())
	syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF)
}
