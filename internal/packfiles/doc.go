// Package packfiles packs host directories into the newc cpio archive an image carries
// (`unitrace run -files HOSTDIR:GUESTDIR`, `mkimage -files`; docs/tools.md), which the kernel
// unpacks at boot into read-only file systems at the GUESTDIRs (kernel/fs/packed).
//
// The archive holds regular files, directories and symbolic links (targets as they are, never
// followed), with their permission bits and modification times; owners are root, and hard links
// become separate files. Records are named by their guest path without the leading slash and
// come in a fixed order, every directory before what it holds, so the same tree always gives
// the same archive; with a fixed modification time (Options.MTime) it is the same whatever the
// host's times, for reproducible images. The archive is written with u-root's newc writer
// (github.com/u-root/u-root/pkg/cpio), the kernel's reader is checked against.
//
// It refuses, with an error naming the path: a GUESTDIR that is not absolute, holds a ".."
// component, or is / or /dev; a HOSTDIR that is not a directory; devices, FIFOs and sockets;
// names the kernel could not unpack (a component over 255 bytes, a path of 4096 bytes or more);
// files of 4 GiB or more (newc's sizes are 32-bit); one path packed from two places unless both
// are directories; more packed directories than the kernel can mount (packed.MaxDirs).
package packfiles
