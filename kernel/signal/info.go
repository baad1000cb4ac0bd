package signal

import "encoding/binary"

// Info is what a signal's siginfo says.
type Info struct {
	Signo int32
	Code  int32  // si_code: SI_USER, SI_TKILL, SI_KERNEL or the fault's code
	Addr  uint64 // si_addr, for faults
	Pid   int32  // si_pid, for SI_USER and SI_TKILL
}

// siginfo_t (include/uapi/asm-generic/siginfo.h struct siginfo, 64-bit: three ints, then the
// union 8-aligned; the Go runtime's siginfo, TestInfoLayout).
const (
	siSigno = 0  // si_signo
	siErrno = 4  // si_errno, always 0 here
	siCode  = 8  // si_code
	siAddr  = 16 // _sifields._sigfault._addr
	siPid   = 16 // _sifields._kill._pid (si_uid after it stays 0: the program runs as root)
)

// fromSender reports whether info describes a sender (kill, tkill) rather than a fault.
func (info Info) fromSender() bool { return info.Code == SI_TKILL || info.Code == SI_USER }

// putInfo writes info as a siginfo_t into b (InfoSize bytes, zeroed).
func putInfo(b []byte, info Info) {
	_ = b[InfoSize-1]
	binary.LittleEndian.PutUint32(b[siSigno:], uint32(info.Signo))
	binary.LittleEndian.PutUint32(b[siCode:], uint32(info.Code))
	if info.fromSender() {
		binary.LittleEndian.PutUint32(b[siPid:], uint32(info.Pid))
	} else {
		binary.LittleEndian.PutUint64(b[siAddr:], info.Addr)
	}
}
