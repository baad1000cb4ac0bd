package packed

// archive is the newc archive of the files packed into the image, part of its read-only data.
// The image builder (internal/image) links an image that packs files with this file replaced
// (go build -overlay) by one that declares the same variable with a //go:embed directive; as it
// stands, nothing is packed. Keep this file to that one declaration: the builder's tests check
// that the replacement still matches it.
var archive string
