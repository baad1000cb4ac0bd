// Package fs is what the kernel's file systems and the path resolver share: Linux's error
// numbers, flags, file types and limits for files (linux.go), the attributes a stat reports
// (stat.go) and their layouts as struct stat and struct statx (statabi.go), and the
// linux_dirent64 records of getdents64 (dirent.go).
//
// It is kernel-mode Go: pointer-free values and allocation-free functions, safe in trap context.
// The file systems live in subpackages (memfs, the in-memory one); vfs ties them into one
// namespace and resolves paths across it.
package fs
