// Command target is the resolver tests' program: functions of the shapes probes go in.
package main

import (
	"fmt"
	"os"
)

type point struct{ x, y int }

//go:noinline
func small(a, b int) int { return a*b + len(os.Args) }

//go:noinline
func framed(s string, n int) string {
	if n > 3 {
		return fmt.Sprint(s, n)
	}
	return s
}

//go:noinline
func large(n int) int {
	var buf [8192]byte
	for i := range buf {
		buf[i] = byte(i * n)
	}
	return int(buf[n%len(buf)]) + sum(buf[:])
}

//go:noinline
func sum(b []byte) int {
	t := 0
	for _, c := range b {
		t += int(c)
	}
	return t
}

//go:noinline
func returns(n int) (int, error) {
	switch {
	case n < 0:
		return 0, fmt.Errorf("negative %d", n)
	case n == 0:
		return 1, nil
	}
	p := point{n, n}
	return p.x * p.y, nil
}

// inlined is inlined into main: its body starts with the move of y into sum's argument.
func inlined(x, y int) int { return returnsOne(y) }

//go:noinline
func returnsOne(int) int { return 1 }

func main() {
	t := 0
	for i := range len(os.Args) + 2 {
		t += inlined(i, t)
	}
	fmt.Println(small(2, 3), framed("x", 5), large(7), t)
	fmt.Println(returns(len(os.Args)))
}
