//go:build !amd64

package main

// divideInstruction returns a/b. Outside amd64 a zero divisor does not trap
// in hardware (arm64 SDIV returns 0), so this is Go's checked division.
func divideInstruction(a, b int64) int64 { return a / b }
