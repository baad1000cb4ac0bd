package main

import "syscall"

// qemuProcAttr: Windows has no process groups of the POSIX kind; QEMU starts as is.
func qemuProcAttr() *syscall.SysProcAttr { return nil }
