//go:build !linux

package main

import "os"

// isTerminal is false outside Linux: no live progress line there.
func isTerminal(*os.File) bool { return false }
