package tracefile

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/unitrace/unitrace/trace/wire"
)

// TypeHost is the frame type of the HOST frame, the launcher's note at the
// start of a recording. The guest never sends it; readers that do not know
// it skip it by length like any unknown frame type.
const TypeHost wire.Type = 32

// Host is the HOST frame's JSON body: what the launcher knew about the run.
type Host struct {
	Image   string    `json:"image,omitempty"`    // path of the image ELF
	BuildID string    `json:"build_id,omitempty"` // its GNU build id, hex
	QEMU    []string  `json:"qemu,omitempty"`     // the QEMU command line
	Accel   string    `json:"accel,omitempty"`    // tcg or kvm
	Start   time.Time `json:"start"`              // when recording started
	Tool    string    `json:"tool,omitempty"`     // "unitrace run" or "unitrace record"
}

// AppendHostFrame appends a HOST frame holding h to b. Its frame sequence
// number is 0: it is not part of the data port's numbering.
func AppendHostFrame(b []byte, h *Host) ([]byte, error) {
	body, err := json.Marshal(h)
	if err != nil {
		return b, err
	}
	if len(body) > wire.MaxPayload {
		return b, fmt.Errorf("HOST frame of %d bytes exceeds the frame limit", len(body))
	}
	return wire.AppendFrame(b, TypeHost, 0, 0, body), nil
}

// ParseHost decodes a HOST frame's payload.
func ParseHost(payload []byte) (*Host, error) {
	var h Host
	if err := json.Unmarshal(payload, &h); err != nil {
		return nil, fmt.Errorf("HOST frame: %w", err)
	}
	return &h, nil
}

// BuildIDHex formats a GNU build id the way HOST frames and messages show it.
func BuildIDHex(id []byte) string { return hex.EncodeToString(id) }
