//go:build !linux

package main

import "os"

// saveTerminal is a no-op outside Linux: QEMU restores the terminal itself
// unless it is killed.
func saveTerminal(*os.File) (restore func()) { return func() {} }
