package netlink

// The guest's one interface: the loopback interface, as a Linux guest brings it up. Its index
// is 1 (loopback is registered first, as on Linux); its addresses 127.0.0.1/8 and ::1/128. The
// guest has no other: its sockets to elsewhere are the launcher's, on the host.
const (
	LoopbackIndex = 1
	loopbackMTU   = 65536
	loopbackFlags = IFF_UP | IFF_LOOPBACK | IFF_RUNNING | IFF_LOWER_UP
	txQueueLen    = 1000
)

var (
	loopbackName  = [...]byte{'l', 'o'}
	loopbackQdisc = [...]byte{'n', 'o', 'q', 'u', 'e', 'u', 'e'}
	loopbackV4    = [4]byte{127, 0, 0, 1}
	loopbackV4Net = [4]byte{255, 0, 0, 0}
	loopbackV6    = [16]byte{15: 1}
)

// isLoopbackName reports whether name (a C string, cut at its first NUL) is "lo".
func isLoopbackName(name []byte) bool {
	for i, c := range name {
		if c == 0 {
			name = name[:i]
			break
		}
	}
	return len(name) == len(loopbackName) && name[0] == 'l' && name[1] == 'o'
}
