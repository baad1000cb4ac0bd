// Package vfs joins the kernel's file systems into one namespace and resolves paths across it
// with Linux's rules (fs/namei.c): components of at most NameMax bytes, paths shorter than
// PathMax, "." and "..", trailing slashes that demand a directory, at most MaxSymlinks symbolic
// links per resolution, and mount points, whose roots ".." leaves through the directory they are
// mounted on. On top of the resolver it offers the path-level operations the system calls need
// (openat, mkdirat, unlinkat, renameat2, linkat, symlinkat, readlinkat, fstatat, utimensat,
// fchmodat, faccessat, truncate, mknodat), checking in the order Linux checks so that each
// failure has Linux's errno. A mounted file system can be made read-only (SetReadOnly, for the
// files packed into an image): every change to it then fails with EROFS, where Linux's read-only
// mounts fail.
//
// File systems are reached by a small tagged dispatch on a Node's file system, not through an
// interface: an interface call would make every name and buffer passed to it escape to the heap,
// which kernel-mode Go must not do. Adding a kind of file system means a case in dispatch.go.
//
// It is kernel-mode Go: a Namespace holds integers and fixed arrays only (its file systems by
// value), and nothing allocates. It does no locking: the caller serialises all calls.
package vfs
