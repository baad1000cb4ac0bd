package fd

// Sizes of struct epoll_event: amd64 declares it packed (events at 0, data
// at 4); arm64 uses natural alignment (data at 8).
const (
	EventSizePacked  = 12
	EventSizeAligned = 16
)

// EventSize is the size of struct epoll_event in the given layout.
func EventSize(packed bool) int {
	if packed {
		return EventSizePacked
	}
	return EventSizeAligned
}

// PutEvents encodes as many whole events of evs as fit in dst, little-endian,
// and returns how many it wrote. In the aligned layout the 4 padding bytes
// are left untouched, as Linux leaves them.
func PutEvents(dst []byte, evs []Event, packed bool) int {
	size := EventSize(packed)
	n := 0
	for ; n < len(evs) && len(dst) >= size; n++ {
		put32(dst[0:4], evs[n].Events)
		put64(dst[size-8:size], evs[n].Data)
		dst = dst[size:]
	}
	return n
}

// GetEvent decodes one struct epoll_event from the start of src (for
// epoll_ctl); ok is false if src is too short.
func GetEvent(src []byte, packed bool) (ev Event, ok bool) {
	size := EventSize(packed)
	if len(src) < size {
		return Event{}, false
	}
	return Event{Events: get32(src[0:4]), Data: get64(src[size-8 : size])}, true
}

func put32(b []byte, v uint32) {
	_ = b[3]
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

func put64(b []byte, v uint64) {
	_ = b[7]
	put32(b[0:4], uint32(v))
	put32(b[4:8], uint32(v>>32))
}

func get32(b []byte) uint32 {
	_ = b[3]
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func get64(b []byte) uint64 {
	_ = b[7]
	return uint64(get32(b[0:4])) | uint64(get32(b[4:8]))<<32
}
