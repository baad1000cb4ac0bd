package signal

import "encoding/binary"

// Info is what a signal's siginfo says.
type Info struct {
	Signo int32
	Code  int32  // si_code: SI_USER, SI_TKILL, SI_KERNEL or the fault's code
	Addr  uint64 // si_addr, for faults
	Pid   int32  // si_pid, for SI_USER and SI_TKILL
	// For SI_TIMER: the POSIX timer's id, its overrun at delivery and its sigev_value.
	TimerID int32
	Overrun int32
	Value   uint64
}

// siginfo_t (include/uapi/asm-generic/siginfo.h struct siginfo, 64-bit: three ints, then the
// union 8-aligned; the Go runtime's siginfo, TestInfoLayout).
const (
	siSigno = 0  // si_signo
	siErrno = 4  // si_errno, always 0 here
	siCode  = 8  // si_code
	siAddr  = 16 // _sifields._sigfault._addr
	siPid   = 16 // _sifields._kill._pid (si_uid after it stays 0: the program runs as root)
	siTid   = 16 // _sifields._timer._tid: the timer's id
	siOver  = 20 // _sifields._timer._overrun
	siValue = 24 // _sifields._timer._sigval
)

// fromSender reports whether info describes a sender (kill, tkill) rather than a fault.
func (info Info) fromSender() bool { return info.Code == SI_TKILL || info.Code == SI_USER }

// putInfo writes info as a siginfo_t into b (InfoSize bytes, zeroed).
func putInfo(b []byte, info Info) {
	_ = b[InfoSize-1]
	binary.LittleEndian.PutUint32(b[siSigno:], uint32(info.Signo))
	binary.LittleEndian.PutUint32(b[siCode:], uint32(info.Code))
	switch {
	case info.Code == SI_TIMER:
		binary.LittleEndian.PutUint32(b[siTid:], uint32(info.TimerID))
		binary.LittleEndian.PutUint32(b[siOver:], uint32(info.Overrun))
		binary.LittleEndian.PutUint64(b[siValue:], info.Value)
	case info.fromSender():
		binary.LittleEndian.PutUint32(b[siPid:], uint32(info.Pid))
	default:
		binary.LittleEndian.PutUint64(b[siAddr:], info.Addr)
	}
}
