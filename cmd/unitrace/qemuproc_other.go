//go:build !linux && !windows

package main

import "syscall"

// qemuProcAttr starts QEMU in a process group of its own (qemuproc_linux.go says why); outside
// Linux there is no Pdeathsig.
func qemuProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
