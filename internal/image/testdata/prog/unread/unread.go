// Package unread is a packed-files package that nothing reads, for the builder's refusal.
package unread

// Unused is never called.
func Unused() int { return len(archive) }
