package cpio

// Err is why an archive was refused. The zero value, OK, is success.
type Err uint8

const (
	OK              Err = iota
	ErrTruncated        // a header, name or data runs past the end of the archive
	ErrMagic            // a header does not start with 070701
	ErrHex              // a header field is not 8 hexadecimal digits
	ErrNameSize         // the name size is 0 (no room for the NUL) or fs.PathMax or more
	ErrNameNUL          // the name is not NUL-terminated, or has a NUL inside
	ErrName             // the name is not a clean relative path
	ErrPadding          // padding after a name or data is not zeros
	ErrNoTrailer        // the archive ends without a TRAILER!!! record
	ErrAfterTrailer     // something other than zeros follows the trailer
	ErrTrailerData      // the trailer record has data
	ErrOffset           // a record offset that is negative, unaligned or past the end
	numErrors           // keep last
)

// String describes the error for the console; it never allocates.
func (e Err) String() string {
	switch e {
	case OK:
		return "ok"
	case ErrTruncated:
		return "cpio: a header, name or file runs past the end of the archive"
	case ErrMagic:
		return "cpio: bad magic (want 070701, newc)"
	case ErrHex:
		return "cpio: a header field is not 8 hexadecimal digits"
	case ErrNameSize:
		return "cpio: name size 0 or too long"
	case ErrNameNUL:
		return "cpio: name not NUL-terminated, or with a NUL inside"
	case ErrName:
		return "cpio: name is not a clean relative path"
	case ErrPadding:
		return "cpio: padding is not zeros"
	case ErrNoTrailer:
		return "cpio: no TRAILER!!! record"
	case ErrAfterTrailer:
		return "cpio: data after the TRAILER!!! record"
	case ErrTrailerData:
		return "cpio: TRAILER!!! record with data"
	case ErrOffset:
		return "cpio: record offset negative, unaligned or past the end"
	}
	return "cpio: unknown error"
}
