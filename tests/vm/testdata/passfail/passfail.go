// Package passfail is the package TestUnitraceTest runs "unitrace test" on: one of its tests
// passes and one fails, each saying so on the console.
package passfail

// Double returns twice n.
func Double(n int) int { return 2 * n }
