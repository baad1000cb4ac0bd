package fs

// Node names a file in a namespace of package vfs: a mounted file system (an index into the
// namespace's mount table) and an inode number in it. The zero Node names nothing. It is defined
// here, below vfs, so that what vfs itself reaches can name files too: the descriptor table
// (package fd), whose open files /proc lists (package procfs).
type Node struct {
	FS  uint16
	Ino uint32
}
