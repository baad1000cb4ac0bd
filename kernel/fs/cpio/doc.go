// Package cpio reads cpio archives in the "new" portable format (newc, magic "070701"), the
// format of Linux's initramfs and of the archive the image builder packs into an image
// (`unitrace run -files`, docs/tools.md), straight from memory.
//
// An archive is a sequence of records, each a 110-byte header of ASCII hexadecimal fields, the
// record's NUL-terminated name and its data (a regular file's contents, a symbolic link's
// target), the name and the data each padded with zeros to a multiple of 4 bytes from the start
// of the archive. A record named TRAILER!!! ends it; only zeros may follow (GNU cpio pads the
// archive to a whole block). Format: the cpio(5) manual page, "New ASCII Format", and Linux's
// init/initramfs.c, which reads it.
//
// Beyond the format, At and Check insist on what the kernel needs to unpack an archive safely:
// every name is a clean relative path (no leading or trailing slash, no empty, "." or ".."
// component, components of at most fs.NameMax bytes, the whole shorter than fs.PathMax), so no
// record can name anything outside the directory the archive is unpacked in; every size stays
// inside the archive; padding is zeros.
//
// It is kernel-mode Go: a Record holds integers only (its name and data are offsets into the
// archive, which every call takes as a byte slice), nothing allocates, and no input makes it
// panic or loop.
package cpio
