package fd

// Inode returns the inode number descriptor fd's object would have on one of Linux's pseudo
// file systems, for the kinds that are no file: a pipe's on pipefs is the pipe's index plus
// one; a socket's on sockfs its slot plus one, and a socket pair's ends come after the sockets,
// two to a pair. Other descriptors have 0. fstat's st_ino and /proc's fd links ("pipe:[N]",
// "socket:[N]") both show it, and every descriptor of one object shows the same, as on Linux.
func (t *Table) Inode(fd int) uint64 {
	if !t.isOpen(fd) {
		return 0
	}
	f := &t.files[fd]
	switch f.kind {
	case KindPipe:
		return uint64(f.desc%MaxPipes) + 1
	case KindSocket:
		return uint64(f.desc%MaxSockets) + 1
	case KindPair:
		end := uint64(0)
		if f.writeEnd {
			end = 1
		}
		return MaxSockets + 2*uint64(f.desc%MaxPairs) + end + 1
	}
	return 0
}
