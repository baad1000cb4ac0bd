// Package memfs is an in-memory file system with the semantics of Linux's tmpfs: regular files,
// directories, hard links, symbolic links and device, FIFO and socket inodes (the kernel serves
// the character devices /dev/null, /dev/zero, /dev/full, /dev/random and /dev/urandom itself).
//
// It works one name at a time, below the path resolver: every operation takes directory inode
// numbers and single path components, and checks what the file system itself must (a name's
// length, whether it exists, whether a directory is empty, whether a rename would move a
// directory into itself). Resolving whole paths, "..", trailing slashes, symbolic links and
// mount points is the resolver's work (package vfs).
//
// It is kernel-mode Go: FS holds integers and fixed arrays only; every method is
// allocation-free and panic-free. Inodes, directory entries and file contents live in 4 KiB
// pages from a Pages allocator that the caller passes to each method that may take or give back
// a page, so FS itself holds no pointer. None of it locks: the caller serialises all calls.
//
// The capacity is fixed when the file system is made: a number of inodes and a number of bytes
// of pages (file data, directory entries, symbolic link targets and the page tables that index
// them). Past it, operations fail with fs.ENOSPC, as tmpfs does past its size and nr_inodes.
package memfs
