package arm64

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/unitrace/unitrace/boot/fdt"
)

// TestVirtConstants checks the defaults of board.go against the device trees QEMU 7.2's virt
// machine wrote (boot/fdt's testdata, GICv2 and GICv3): the PL011's, PL031's and GIC's
// addresses, and the PL011's interrupt, which the kernel enables without the device tree's
// flags (level-sensitive, as QEMU's PL011 drives it).
func TestVirtConstants(t *testing.T) {
	for _, file := range []string{"virt.dtb", "virt-gicv3.dtb"} {
		t.Run(file, func(t *testing.T) {
			blob, err := os.ReadFile(filepath.Join("..", "..", "boot", "fdt", "testdata", file))
			if err != nil {
				t.Fatal(err)
			}
			var m fdt.Machine
			if e := fdt.Blob(blob).ReadMachine(&m); e != fdt.OK {
				t.Fatalf("ReadMachine: %v", e)
			}
			if m.UART.Reg.Addr != DefaultUARTBase || m.UART.INTID != IntidUART {
				t.Errorf("PL011 at %#x, interrupt %d; board.go says %#x, %d", m.UART.Reg.Addr, m.UART.INTID, uint64(DefaultUARTBase), IntidUART)
			}
			if m.RTC.Reg.Addr != DefaultRTCBase {
				t.Errorf("PL031 at %#x, board.go says %#x", m.RTC.Reg.Addr, uint64(DefaultRTCBase))
			}
			if m.GIC.Dist.Addr != DefaultGICDBase {
				t.Errorf("GIC distributor at %#x, board.go says %#x", m.GIC.Dist.Addr, uint64(DefaultGICDBase))
			}
		})
	}
}
