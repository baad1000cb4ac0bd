// Command portecho exercises the kernel's trace device from a program: it writes numbered lines
// to the data port (descriptor 3), then reads one command from the control port (descriptor 4)
// and writes it back on the data port. tests/vm's TestTracePorts drives it.
package main

import (
	"fmt"
	"os"
	"syscall"

	_ "github.com/unitrace/unitrace/kernel"
)

const (
	dataFD = 3
	ctlFD  = 4
	lines  = 2000
)

func main() {
	total := 0
	for i := 0; i < lines; i++ {
		n, err := syscall.Write(dataFD, fmt.Appendf(nil, "line %05d of %d\n", i, lines))
		if err != nil {
			fmt.Println("write:", err)
			os.Exit(1)
		}
		total += n
	}
	fmt.Println("portecho: wrote", total, "bytes")
	buf := make([]byte, 256)
	n, err := syscall.Read(ctlFD, buf)
	if err != nil {
		fmt.Println("read:", err)
		os.Exit(1)
	}
	syscall.Write(dataFD, fmt.Appendf(nil, "echo %s\n", buf[:n]))
	fmt.Printf("portecho: echoed %q\n", buf[:n])
}
