//go:build amd64

// Package amd64 of the fake guest provides the PVH entry only.
package amd64

// pvhEntry is the image's entry point. It is never called from Go.
func pvhEntry()
