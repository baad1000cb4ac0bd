package trace

import "github.com/unitrace/unitrace/trace/imageid"

// imageBuildID receives the image's GNU build id from the image builder (see package
// imageid). It is initialised with the marker so that it is in the image's data, not its bss.
var imageBuildID = imageid.Slot{Marker: [16]byte{'u', 'n', 'i', 't', 'r', 'a', 'c', 'e', ':', 'b', 'u', 'i', 'l', 'd', 'i', 'd'}}

// ImageBuildID returns a copy of the image's GNU build id, or nil if the builder did not fill
// the slot (a program run as a plain Linux process, or an image built some other way).
func ImageBuildID() []byte {
	id := imageBuildID.Read()
	if id == nil {
		return nil
	}
	return append([]byte(nil), id...)
}
