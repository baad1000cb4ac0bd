package wire

import "fmt"

// Message is a frame payload.
type Message interface {
	FrameType() Type
	// AppendPayload appends the encoded payload to b.
	AppendPayload(b []byte) ([]byte, error)
}

// JSON is the payload of the control frames (CMD, RESP, EVENT): one small
// JSON object, which this package does not interpret.
type JSON struct {
	Type Type // TypeCmd, TypeResp or TypeEvent
	Body []byte
}

// FrameType implements Message.
func (m *JSON) FrameType() Type { return m.Type }

// AppendPayload implements Message.
func (m *JSON) AppendPayload(b []byte) ([]byte, error) { return append(b, m.Body...), nil }

// Unknown is the payload of a frame type this version does not know.
type Unknown struct {
	Type Type
	Body []byte
}

// FrameType implements Message.
func (m *Unknown) FrameType() Type { return m.Type }

// AppendPayload implements Message.
func (m *Unknown) AppendPayload(b []byte) ([]byte, error) { return append(b, m.Body...), nil }

// Decode decodes a frame's payload into its typed Message: *Hello, *Dict,
// *Data, *Lost, *Stats, *Clock, *End, *JSON, or *Unknown for types this
// version does not know. Payload bytes may be aliased by the result. A
// fragment (FlagMore, or a continuation) is decoded as it stands; callers
// that fragment a payload join the fragments first.
func Decode(f *Frame) (Message, error) {
	var (
		m   Message
		err error
	)
	switch f.Type {
	case TypeHello:
		v := new(Hello)
		m, err = v, v.Unmarshal(f.Payload)
	case TypeDict:
		v := new(Dict)
		m, err = v, v.Unmarshal(f.Payload)
	case TypeData:
		v := new(Data)
		m, err = v, v.Unmarshal(f.Payload)
	case TypeLost:
		v := new(Lost)
		m, err = v, v.Unmarshal(f.Payload)
	case TypeStats:
		v := new(Stats)
		m, err = v, v.Unmarshal(f.Payload)
	case TypeClock:
		v := new(Clock)
		m, err = v, v.Unmarshal(f.Payload)
	case TypeEnd:
		v := new(End)
		m, err = v, v.Unmarshal(f.Payload)
	case TypeCmd, TypeResp, TypeEvent:
		m = &JSON{Type: f.Type, Body: f.Payload}
	default:
		m = &Unknown{Type: f.Type, Body: f.Payload}
	}
	if err != nil {
		return m, &FrameError{Offset: f.Offset, Err: fmt.Errorf("%v payload: %w", f.Type, err)}
	}
	return m, nil
}
