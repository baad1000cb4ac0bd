package amd64

// The text console: the 16550 UART at COM1 (I/O port 0x3f8). Output is polled: QEMU's
// -serial stdio drains it as fast as the guest writes, so polling the transmit-holding-empty
// bit costs little. Input is interrupt-driven (EnableConsoleReceive): the receive-data
// interrupt, ISA IRQ 4, reaches the kernel through the I/O APIC as ConsoleGSI.
//
// Register offsets and bits are the National Semiconductor PC16550D datasheet's (§8.1, table
// II); COM1's port and IRQ 4 are the IBM PC/AT's assignment, which QEMU's isa-serial keeps.

const (
	com1      = 0x3f8
	uartData  = 0 // THR/RBR (DLAB=0), divisor low (DLAB=1)
	uartIER   = 1 // interrupt enable (DLAB=0), divisor high (DLAB=1)
	uartFCR   = 2
	uartLCR   = 3
	uartMCR   = 4
	uartLSR   = 5
	lsrDR     = 0x01 // LSR bit 0: data ready (a byte in RBR or the receive FIFO)
	lsrTHRE   = 0x20 // transmit holding register empty
	lcrDLAB   = 0x80
	lcr8N1    = 0x03
	ierERBFI  = 0x01    // IER bit 0: received data available, and with FIFOs the character timeout
	mcrDTRRTS = 0x03    // MCR bits 0-1: DTR, RTS
	mcrOUT2   = 0x08    // MCR bit 3: OUT2, which on a PC gates the UART's INTRPT onto its IRQ line
	fcrInit   = 0xc7    // FIFOs on and cleared, receive trigger level 14 bytes
	uartSpins = 1 << 20 // give up on a stuck UART rather than hang the kernel
)

// InitConsole programs COM1 for 115200 8N1 with interrupts off and FIFOs on.
func InitConsole() {
	Outb(com1+uartIER, 0)
	Outb(com1+uartLCR, lcrDLAB)
	Outb(com1+uartData, 1) // divisor 1: 115200 baud
	Outb(com1+uartIER, 0)
	Outb(com1+uartLCR, lcr8N1)
	Outb(com1+uartFCR, fcrInit)
	Outb(com1+uartMCR, mcrDTRRTS)
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

// EnableConsoleReceive opens the UART's interrupt output onto IRQ 4 (OUT2) and turns the
// receive interrupt on. The line must be routed first (RouteLegacyGSI).
func EnableConsoleReceive() {
	Outb(com1+uartMCR, mcrDTRRTS|mcrOUT2)
	ConsoleReceiveInterrupt(true)
}

// ConsoleReceiveInterrupt turns the receive interrupt on or off. Off, the UART lowers its line
// (QEMU's 16550 drives it as a level), its FIFO fills, and then QEMU stops taking input from
// the host until the guest reads again.
//
//go:nosplit
func ConsoleReceiveInterrupt(on bool) {
	var ier uint8
	if on {
		ier = ierERBFI
	}
	Outb(com1+uartIER, ier)
}

// ConsoleReceive moves the bytes the UART holds into dst, up to len(dst), and returns how
// many. Emptying the receive FIFO ends its interrupt (the data-available and the timeout one).
//
//go:nosplit
func ConsoleReceive(dst []byte) int {
	n := 0
	for n < len(dst) && Inb(com1+uartLSR)&lsrDR != 0 {
		dst[n] = Inb(com1 + uartData)
		n++
	}
	return n
}
