package main

// divideInstruction returns a/b computed by IDIVQ, without Go's divisor
// check.
func divideInstruction(a, b int64) int64
