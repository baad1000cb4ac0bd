package p9

// Err is why a message could not be encoded or a reply was rejected. The zero value means
// success. It is a small integer so that kernel-mode callers can return, compare and print it
// without allocating; every rejected reply has its own value, so a trace says what was wrong.
type Err uint8

const (
	OK Err = iota

	// Encoding.
	ErrBuffer  // the message does not fit the buffer
	ErrTooLong // the message would be larger than msize
	ErrStrLen  // a string longer than 65535 bytes
	ErrTooMany // a Twalk of more than MaxWalk names
	ErrDataLen // a Twrite's data does not fit its count field
	ErrRequest // ParseReply of a request type this package does not send

	// Decoding a reply's header (ParseReply).
	ErrShort   // fewer bytes than the 7-byte header
	ErrSize    // the size field is not the number of bytes received
	ErrBig     // the size field is larger than msize
	ErrTag     // the tag is not the request's
	ErrType    // the type is neither the request's reply nor Rlerror
	ErrMsgType // a body decoder called on a reply of another type

	// Decoding a reply's body.
	ErrTruncated // a fixed-size field runs past the end of the message
	ErrString    // a string's length runs past the end of the message
	ErrCount     // a data count runs past the end of the message
	ErrOvercount // a data count larger than the request asked for
	ErrTrailing  // bytes left over after the last field
	ErrWalk      // an Rwalk with more qids than the Twalk had names
	ErrDirent    // a readdir entry runs past the end of the data
	ErrDirName   // a readdir entry's name is empty or holds '/' or NUL
	ErrVersion   // Rversion names a protocol other than 9P2000.L
	ErrMsize     // Rversion's msize is below MinMsize or above the one proposed

	// The client's state machine.
	ErrNoOp    // a reply for a tag that has no operation in flight
	ErrNoReply // an empty reply to a request that was not flushed

	numErrs
)

var errText = [numErrs]string{
	OK:           "ok",
	ErrBuffer:    "message does not fit the buffer",
	ErrTooLong:   "message larger than msize",
	ErrStrLen:    "string longer than 65535 bytes",
	ErrTooMany:   "more than 16 names in one walk",
	ErrDataLen:   "write data longer than its count field",
	ErrRequest:   "request type not supported",
	ErrShort:     "reply shorter than a message header",
	ErrSize:      "reply size field does not match the bytes received",
	ErrBig:       "reply larger than msize",
	ErrTag:       "reply tag does not match the request",
	ErrType:      "reply type does not match the request",
	ErrMsgType:   "reply decoded as the wrong type",
	ErrTruncated: "reply field runs past the end",
	ErrString:    "reply string runs past the end",
	ErrCount:     "reply data count runs past the end",
	ErrOvercount: "reply data count larger than requested",
	ErrTrailing:  "bytes left after the reply's last field",
	ErrWalk:      "walk reply has more qids than names",
	ErrDirent:    "readdir entry runs past the end of the data",
	ErrDirName:   "readdir entry has an invalid name",
	ErrVersion:   "server does not speak 9P2000.L",
	ErrMsize:     "server's msize out of range",
	ErrNoOp:      "reply for a tag with nothing in flight",
	ErrNoReply:   "empty reply",
}

// String returns a constant description; it never allocates.
func (e Err) String() string {
	if e < numErrs {
		return errText[e]
	}
	return "unknown 9P error"
}
