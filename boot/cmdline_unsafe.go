package boot

import "unsafe"

// view returns b as a string without copying. It is safe because b is
// always part of a Cmdline's buffer, which only Parse writes, and the
// accessors document that their strings last until the next Parse.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
