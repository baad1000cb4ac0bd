// Package packed unpacks the files packed into an image (`unitrace run -files HOSTDIR:GUESTDIR`,
// docs/tools.md) into the kernel's namespace, each packed directory a read-only memfs mounted
// at its place.
//
// The image builder links the files into the image as a newc cpio archive (package cpio): the
// build replaces image.go, which holds the archive, with a file that embeds it, so the archive
// is part of the image's read-only data and travels with it, and no boot protocol has to carry
// it. Archive returns it; Mount unpacks it; Release hands its memory back once it is unpacked.
//
// Records are named by their path in the guest without the leading slash. A directory record
// whose parent is not inside a packed directory is a packed directory itself: Mount makes the
// directories leading to it in the file system below (mode 0755, as mkdir -p does), mounts a
// fresh memfs there and unpacks the records below it into that memfs. When every record is in
// place it gives each directory its time from the archive (creating its entries changed it)
// and makes each of those memfs read-only (vfs.Namespace.SetReadOnly).
//
// It is kernel-mode Go: nothing here allocates or keeps a pointer; the namespace, its page
// allocator and the archive come in as arguments.
package packed
