package arm64

// The text console: a PL011 UART (Arm PrimeCell UART (PL011) Technical Reference Manual, Arm
// DDI 0183, §3.2-3.3 for the register offsets and bits). Output is polled: QEMU's -serial
// stdio (or -nographic) drains it as fast as the guest writes, so polling the
// transmit-FIFO-full bit costs little. Input is interrupt-driven (EnableConsoleReceive): the
// UART's combined interrupt is an SPI (IntidUART on QEMU virt, or the device tree's).

const (
	uartDR    = 0x00
	uartFR    = 0x18
	uartIBRD  = 0x24
	uartFBRD  = 0x28
	uartLCRH  = 0x2c
	uartCR    = 0x30
	uartIMSC  = 0x38
	uartICR   = 0x44
	frRXFE    = 1 << 4  // receive FIFO empty
	frTXFF    = 1 << 5  // transmit FIFO full
	lcrhWLEN8 = 3 << 5  // 8 data bits
	lcrhFEN   = 1 << 4  // FIFOs on
	crUARTEN  = 1 << 0  // UART on
	crTXE     = 1 << 8  // transmitter on
	crRXE     = 1 << 9  // receiver on
	imscRXIM  = 1 << 4  // receive interrupt (the FIFO reached its trigger level)
	imscRTIM  = 1 << 6  // receive timeout interrupt (bytes below the trigger level, line idle)
	uartSpins = 1 << 20 // give up on a stuck UART rather than hang the kernel
)

// uartBase is the PL011 in use; written by InitConsole. Statically initialized, so the console
// works before InitConsole (and before any package initializer could have run).
var uartBase uintptr = DefaultUARTBase

// InitConsole programs the PL011 at base (0: DefaultUARTBase) for 8N1 with FIFOs on and its
// interrupts masked. The baud-rate divisors assume a 24 MHz reference clock (115200 baud);
// QEMU ignores them.
func InitConsole(base uintptr) {
	if base != 0 {
		uartBase = base
	}
	mmioWrite32(uartBase+uartCR, 0)
	mmioWrite32(uartBase+uartIMSC, 0)
	mmioWrite32(uartBase+uartICR, 0x7ff)
	mmioWrite32(uartBase+uartIBRD, 13)
	mmioWrite32(uartBase+uartFBRD, 1)
	mmioWrite32(uartBase+uartLCRH, lcrhWLEN8|lcrhFEN)
	mmioWrite32(uartBase+uartCR, crUARTEN|crTXE|crRXE)
}

// ConsoleWrite writes b to the PL011, turning "\n" into "\r\n" as a terminal expects.
func ConsoleWrite(b []byte) {
	for _, c := range b {
		if c == '\n' {
			putc('\r')
		}
		putc(c)
	}
}

func putc(c byte) {
	for i := 0; i < uartSpins && mmioRead32(uartBase+uartFR)&frTXFF != 0; i++ {
	}
	mmioWrite32(uartBase+uartDR, uint32(c))
}

// EnableConsoleReceive enables the UART's interrupt intid in the GIC, level-sensitive (the
// PL011's UARTINTR is a level: high while an unmasked interrupt is raised), and unmasks the
// receive interrupts.
func EnableConsoleReceive(intid uint32) {
	ConfigureIRQ(intid, false)
	EnableIRQ(intid, PriorityNormal)
	ConsoleReceiveInterrupt(true)
}

// ConsoleReceiveInterrupt unmasks or masks the receive and receive-timeout interrupts. Masked,
// the UART lowers its line, its FIFO fills, and then QEMU stops taking input from the host
// until the guest reads again.
//
//go:nosplit
func ConsoleReceiveInterrupt(on bool) {
	var imsc uint32
	if on {
		imsc = imscRXIM | imscRTIM
	}
	mmioWrite32(uartBase+uartIMSC, imsc)
}

// ConsoleReceive moves the bytes the UART holds into dst, up to len(dst), and returns how
// many. Emptying the receive FIFO clears its interrupts (the PL011 clears the receive and
// timeout interrupts as the FIFO drains below the trigger level and empties). The data
// register's error bits (11:8) are dropped: the line has no parity or framing under QEMU.
//
//go:nosplit
func ConsoleReceive(dst []byte) int {
	n := 0
	for n < len(dst) && mmioRead32(uartBase+uartFR)&frRXFE == 0 {
		dst[n] = byte(mmioRead32(uartBase + uartDR))
		n++
	}
	return n
}
