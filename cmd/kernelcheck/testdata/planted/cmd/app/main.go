// Command app links both packages.
package main

import (
	"example.com/planted/clean"
	"example.com/planted/kern"
)

func main() {
	kern.Push(kern.New(1))
	println(len(kern.Grow(nil, 1)), len(kern.Buf(4)), kern.Box(2) != nil, kern.Name("a", "b"), kern.Lookup(map[int]int{1: 2}, 1))
	println(clean.Add(1, 2), kern.Narrow(nil) == nil)
}
