package wire

import (
	"errors"
	"fmt"
)

// Sentinel causes of a *FrameError.
var (
	ErrBadMagic  = errors.New("no frame magic")
	ErrVersion   = errors.New("unknown frame version")
	ErrTooLarge  = errors.New("payload length exceeds the 1 MiB limit")
	ErrBadCRC    = errors.New("CRC32C mismatch")
	ErrTruncated = errors.New("frame extends past the end of the input")
)

// FrameError reports bytes the Reader could not read as a frame. Offset is
// where the bad bytes start; Skipped is how many bytes the Reader passed over
// to reach the next magic (or the end of the input).
type FrameError struct {
	Offset  int64
	Skipped int64
	Err     error
}

func (e *FrameError) Error() string {
	if e.Skipped > 0 {
		return fmt.Sprintf("offset %d: %v (skipped %d bytes)", e.Offset, e.Err, e.Skipped)
	}
	return fmt.Sprintf("offset %d: %v", e.Offset, e.Err)
}

func (e *FrameError) Unwrap() error { return e.Err }
