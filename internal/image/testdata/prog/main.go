// Command prog is a stand-in for a unitrace program in the image builder's
// tests: its entry package plays the part of the kernel's arch package.
package main

import _ "example.com/prog/entry"

func main() { println("prog") }
