package arm64

import "testing"

func TestHWCapFromID(t *testing.T) {
	for _, c := range []struct {
		name        string
		isar0, pfr0 uint64
		want        uint64
	}{
		// Cortex-A57 on QEMU (QEMU's cortex-a57 model): AES+PMULL, SHA1, SHA2, CRC32, no LSE;
		// FP and AdvSIMD without half precision.
		{"cortex-a57", 0x0000_0000_0001_1120, 0x0000_0000_0000_2222,
			HWCapFP | HWCapASIMD | HWCapAES | HWCapPMULL | HWCapSHA1 | HWCapSHA2 | HWCapCRC32},
		{"lse, sha512, sha3, dot product, rdm", 0x0000_1001_1021_2220, 0x0000_0000_0011_0000,
			HWCapFP | HWCapFPHP | HWCapASIMD | HWCapASIMDHP | HWCapAES | HWCapPMULL | HWCapSHA1 |
				HWCapSHA2 | HWCapSHA512 | HWCapCRC32 | HWCapATOMICS | HWCapRDM | HWCapSHA3 | HWCapASIMDDP},
		{"no fp, no simd", 0, 0x0000_0000_00ff_0000, 0},
		{"aes only, sm3, sm4, fhm", 0x0001_0110_0000_0010, 0, HWCapFP | HWCapASIMD | HWCapAES | HWCapSM3 | HWCapSM4 | HWCapFHM},
		{"sve never reported", 0, 0x0000_0001_0000_0000, HWCapFP | HWCapASIMD},
	} {
		if got := HWCapFromID(c.isar0, c.pfr0); got != c.want {
			t.Errorf("%s: HWCapFromID = %#x, want %#x", c.name, got, c.want)
		}
	}
}
