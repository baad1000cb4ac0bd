package amd64

// The text console: the 16550 UART at COM1 (I/O port 0x3f8), polled. QEMU's -serial stdio
// drains it as fast as the guest writes, so polling the transmit-holding-empty bit costs little.

const (
	com1      = 0x3f8
	uartData  = 0 // THR/RBR (DLAB=0), divisor low (DLAB=1)
	uartIER   = 1 // interrupt enable (DLAB=0), divisor high (DLAB=1)
	uartFCR   = 2
	uartLCR   = 3
	uartMCR   = 4
	uartLSR   = 5
	lsrTHRE   = 0x20 // transmit holding register empty
	lcrDLAB   = 0x80
	lcr8N1    = 0x03
	uartSpins = 1 << 20 // give up on a stuck UART rather than hang the kernel
)

// InitConsole programs COM1 for 115200 8N1 with interrupts off and FIFOs on.
func InitConsole() {
	Outb(com1+uartIER, 0)
	Outb(com1+uartLCR, lcrDLAB)
	Outb(com1+uartData, 1) // divisor 1: 115200 baud
	Outb(com1+uartIER, 0)
	Outb(com1+uartLCR, lcr8N1)
	Outb(com1+uartFCR, 0xc7) // enable and clear FIFOs
	Outb(com1+uartMCR, 0x03) // DTR, RTS
}

// ConsoleWrite writes b to COM1, turning "\n" into "\r\n" as a terminal expects.
func ConsoleWrite(b []byte) {
	for _, c := range b {
		if c == '\n' {
			putc('\r')
		}
		putc(c)
	}
}

func putc(c byte) {
	for i := 0; i < uartSpins && Inb(com1+uartLSR)&lsrTHRE == 0; i++ {
		Pause()
	}
	Outb(com1+uartData, c)
}
