// Command prog is a stand-in for a unitrace program in the image builder's
// tests: its entry package plays the part of the kernel's arch package, its
// packed package that of the kernel's packed files.
package main

import (
	_ "example.com/prog/entry"
	"example.com/prog/packed"
	_ "example.com/prog/unread"
)

func main() { println("prog", packed.Size()) }
