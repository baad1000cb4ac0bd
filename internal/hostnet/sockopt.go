package hostnet

import (
	"encoding/binary"
	"syscall"
	"unsafe"
)

// The socket options a guest may set and read: the ones Go's net package and ordinary servers
// use (listeners' SO_REUSEADDR, TCP_NODELAY and keep-alives on connections, IPV6_V6ONLY,
// SO_BROADCAST on UDP, buffer sizes, linger), and SO_ERROR, SO_TYPE and the like to read.
// Any other is ENOPROTOOPT, which Linux answers for an option it does not know.
type optKey struct{ level, name int64 }

const (
	solSocket   = syscall.SOL_SOCKET
	ipprotoTCP  = syscall.IPPROTO_TCP
	ipprotoIPv6 = syscall.IPPROTO_IPV6
	ipprotoIP   = syscall.IPPROTO_IP
)

var settable = map[optKey]bool{
	{solSocket, syscall.SO_REUSEADDR}: true, {solSocket, 0xf /* SO_REUSEPORT */}: true,
	{solSocket, syscall.SO_KEEPALIVE}: true, {solSocket, syscall.SO_BROADCAST}: true,
	{solSocket, syscall.SO_LINGER}: true, {solSocket, syscall.SO_RCVBUF}: true,
	{solSocket, syscall.SO_SNDBUF}: true, {solSocket, syscall.SO_OOBINLINE}: true,
	{ipprotoTCP, syscall.TCP_NODELAY}: true, {ipprotoTCP, syscall.TCP_KEEPIDLE}: true,
	{ipprotoTCP, syscall.TCP_KEEPINTVL}: true, {ipprotoTCP, syscall.TCP_KEEPCNT}: true,
	{ipprotoIPv6, syscall.IPV6_V6ONLY}: true, {ipprotoIP, syscall.IP_TOS}: true,
	{ipprotoIP, syscall.IP_TTL}: true, {ipprotoIPv6, syscall.IPV6_UNICAST_HOPS}: true,
}

var readable = map[optKey]bool{
	{solSocket, syscall.SO_ERROR}: true, {solSocket, syscall.SO_TYPE}: true,
	{solSocket, syscall.SO_ACCEPTCONN}: true, {solSocket, syscall.SO_DOMAIN}: true,
	{solSocket, syscall.SO_PROTOCOL}: true,
}

// maxOptLen bounds an option's value: the largest above is struct linger (8 bytes).
const maxOptLen = 64

func setsockopt(fd int, level, name int64, val []byte) int64 {
	if !settable[optKey{level, name}] {
		return -int64(syscall.ENOPROTOOPT)
	}
	if len(val) > maxOptLen {
		return -int64(syscall.EINVAL)
	}
	var p unsafe.Pointer
	if len(val) > 0 {
		p = unsafe.Pointer(&val[0])
	}
	_, _, e := syscall.Syscall6(syscall.SYS_SETSOCKOPT, uintptr(fd), uintptr(level), uintptr(name), uintptr(p), uintptr(len(val)), 0)
	if e != 0 {
		return -int64(e)
	}
	return 0
}

// getsockopt reads an option into at most room bytes: the reply's data is the value, and its
// length is what Linux writes back to optlen.
func getsockopt(fd int, level, name, room int64) (int64, int64, []byte) {
	k := optKey{level, name}
	if !settable[k] && !readable[k] {
		return -int64(syscall.ENOPROTOOPT), 0, nil
	}
	if room < 0 {
		return -int64(syscall.EINVAL), 0, nil
	}
	buf := make([]byte, maxOptLen)
	n := uint32(min(room, maxOptLen))
	_, _, e := syscall.Syscall6(syscall.SYS_GETSOCKOPT, uintptr(fd), uintptr(level), uintptr(name),
		uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&n)), 0)
	if e != 0 {
		return -int64(e), 0, nil
	}
	return 0, 0, buf[:n]
}

// fionread is FIONREAD (SIOCINQ): the bytes a read of the socket would find.
const fionread = 0x541B

// ioctlInt makes an ioctl that returns an int: FIONREAD only, the one a guest forwards; any
// other request is ENOTTY, as Linux answers one a socket does not know.
func ioctlInt(fd int, req int64) (int64, int64, []byte) {
	if req != fionread {
		return -int64(syscall.ENOTTY), 0, nil
	}
	var v int32
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), fionread, uintptr(unsafe.Pointer(&v)))
	if e != 0 {
		return -int64(e), 0, nil
	}
	b := make([]byte, 4)
	binary.LittleEndian.PutUint32(b, uint32(v))
	return 0, 0, b
}
