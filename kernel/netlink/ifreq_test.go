package netlink

import (
	"bytes"
	"runtime"
	"testing"
	"unsafe"

	"github.com/unitrace/unitrace/kernel/abi"

	"golang.org/x/sys/unix"
)

func ifreqOf(name string) []byte {
	b := make([]byte, IfreqSize)
	copy(b, name)
	return b
}

// TestIfreqMatchesHost asks lo's ioctls here and, on Linux, of the host's lo on an AF_INET
// socket, and compares the answers.
func TestIfreqMatchesHost(t *testing.T) {
	host := -1
	if runtime.GOOS == "linux" {
		if s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0); err == nil {
			host = s
			defer unix.Close(s)
		}
	}
	for _, req := range []uint32{SIOCGIFFLAGS, SIOCGIFADDR, SIOCGIFDSTADDR, SIOCGIFBRDADDR, SIOCGIFNETMASK,
		SIOCGIFMETRIC, SIOCGIFMTU, SIOCGIFHWADDR, SIOCGIFINDEX, SIOCGIFTXQLEN} {
		if !IsIfreq(req) {
			t.Errorf("%#x is no ifreq request", req)
		}
		got := ifreqOf("lo")
		if errno := Ifreq(req, got); errno != 0 {
			t.Errorf("request %#x on lo: errno %d", req, errno)
			continue
		}
		if host < 0 {
			continue
		}
		want := ifreqOf("lo")
		if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(host), uintptr(req), uintptr(unsafe.Pointer(&want[0]))); e != 0 {
			t.Logf("request %#x on the host's lo: %v", req, e)
			continue
		}
		if req == SIOCGIFTXQLEN || req == SIOCGIFFLAGS {
			continue // a host's lo may have another queue length, and its flags vary (PROMISC, ...)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("request %#x on lo = %x, the host's %x", req, got, want)
		}
	}
	if errno := Ifreq(SIOCGIFINDEX, ifreqOf("eth0")); errno != abi.ENODEV {
		t.Errorf("SIOCGIFINDEX of eth0 = %d, want ENODEV", errno)
	}
	long := ifreqOf("lo")
	for i := 2; i < IFNAMSIZ; i++ {
		long[i] = 'x'
	}
	if errno := Ifreq(SIOCGIFINDEX, long); errno != abi.ENODEV {
		t.Errorf("SIOCGIFINDEX of an unterminated name = %d, want ENODEV", errno)
	}
	byIndex := ifreqOf("")
	byIndex[IFNAMSIZ] = 1
	if errno := Ifreq(SIOCGIFNAME, byIndex); errno != 0 || string(byIndex[:3]) != "lo\x00" {
		t.Errorf("SIOCGIFNAME of 1 = %q, %d", byIndex[:IFNAMSIZ], errno)
	}
	byIndex[IFNAMSIZ] = 2
	if errno := Ifreq(SIOCGIFNAME, byIndex); errno != abi.ENODEV {
		t.Errorf("SIOCGIFNAME of 2 = %d, want ENODEV", errno)
	}
	if errno := Ifreq(SIOCGIFINDEX, make([]byte, 8)); errno != abi.EFAULT {
		t.Errorf("a short ifreq = %d, want EFAULT", errno)
	}
}

// TestEthtool checks lo's two answers: no driver information, software time stamps.
func TestEthtool(t *testing.T) {
	out := make([]byte, EthtoolTsInfoLen)
	if _, errno := Ethtool(ifreqOf("lo"), ETHTOOL_GDRVINFO, out); errno != abi.EOPNOTSUPP {
		t.Errorf("ETHTOOL_GDRVINFO = %d, want EOPNOTSUPP", errno)
	}
	n, errno := Ethtool(ifreqOf("lo"), ETHTOOL_GET_TS_INFO, out)
	info := (*unix.EthtoolTsInfo)(unsafe.Pointer(&out[0]))
	if errno != 0 || n != EthtoolTsInfoLen || info.Cmd != ETHTOOL_GET_TS_INFO || info.Phc_index != -1 ||
		info.So_timestamping != unix.SOF_TIMESTAMPING_TX_SOFTWARE|unix.SOF_TIMESTAMPING_RX_SOFTWARE|unix.SOF_TIMESTAMPING_SOFTWARE {
		t.Errorf("ETHTOOL_GET_TS_INFO = %+v, %d, %d", info, n, errno)
	}
	if _, errno := Ethtool(ifreqOf("eth0"), ETHTOOL_GET_TS_INFO, out); errno != abi.ENODEV {
		t.Errorf("ETHTOOL_GET_TS_INFO of eth0 = %d, want ENODEV", errno)
	}
	entry := make([]byte, IfreqSize)
	if !IfconfEntry(0, entry) || string(entry[:3]) != "lo\x00" || entry[IFNAMSIZ] != AF_INET || !bytes.Equal(entry[IFNAMSIZ+4:IFNAMSIZ+8], []byte{127, 0, 0, 1}) || IfconfEntry(1, entry) {
		t.Errorf("SIOCGIFCONF's entries: %x", entry)
	}
}
