package fd

import "github.com/unitrace/unitrace/kernel/abi"

// Named FIFOs. Every open of a FIFO's inode (mknod S_IFIFO, mkfifo) is an end of one pipe, the
// same for all its openers while any end is open, as Linux's fifo_open: O_RDONLY opens a read
// end, O_WRONLY a write end, O_RDWR a descriptor that is both (it never sees end of file nor a
// broken pipe while it is open). The pipe is a pipe2 pipe in every other way; it is identified
// by the caller's key for the inode, and forgotten with its last end.
//
// Whether an open waits for its partner is the caller's: OpenFIFO reports the count of opens of
// the other end, and the open is complete once that count moves (FIFOPartnerOpens), as Linux's
// wait_for_partner.

// OpenFIFO opens the lowest free descriptor on an end of the FIFO with inode key key, as
// open(2) with flags (the access mode chooses the end; O_CLOEXEC and O_NONBLOCK are kept). It
// returns the pipe, and the opens of the other end so far (partner) when the open must wait for
// one: O_RDONLY without O_NONBLOCK while no writer is open, O_WRONLY without O_NONBLOCK while
// no reader is (wait is false otherwise). O_WRONLY|O_NONBLOCK without a reader is ENXIO; an
// access mode of 3 EINVAL; no free descriptor EMFILE; no free pipe ENFILE.
func (t *Table) OpenFIFO(key uint64, flags int) (fd, p int, partner uint32, wait bool, errno int) {
	mode := flags & 3
	if mode == 3 {
		return -1, -1, 0, false, abi.EINVAL
	}
	p = -1
	free := -1
	for i := range t.pipes {
		switch {
		case t.pipes[i].inUse() && t.pipes[i].fifo == key+1:
			p = i
		case free < 0 && !t.pipes[i].inUse():
			free = i
		}
	}
	nonblock := flags&O_NONBLOCK != 0
	if mode == O_WRONLY && nonblock && (p < 0 || t.pipes[p].readers == 0) {
		return -1, -1, 0, false, abi.ENXIO
	}
	if p < 0 && free < 0 {
		return -1, -1, 0, false, abi.ENFILE
	}
	fd = t.open(KindPipe, flags&O_CLOEXEC != 0, nonblock)
	if fd < 0 {
		return -1, -1, 0, false, abi.EMFILE
	}
	if p < 0 {
		p = free
		t.pipes[p] = pipe{fifo: key + 1}
	}
	pp := &t.pipes[p]
	f := &t.files[fd]
	f.desc = int16(p)
	switch mode {
	case O_RDONLY:
		pp.readers++
		pp.rOpens++
		partner, wait = pp.wOpens, !nonblock && pp.writers == 0
		if pp.readers == 1 {
			t.notifyPipe(p, true, EPOLLOUT) // a writer's EPOLLERR is over
		}
	case O_WRONLY:
		f.writeEnd = true
		pp.writers++
		pp.wOpens++
		partner, wait = pp.rOpens, !nonblock && pp.readers == 0
	default:
		f.rdwr = true
		pp.readers++
		pp.writers++
		pp.rOpens++
		pp.wOpens++
	}
	return fd, p, partner, wait, 0
}

// FIFOPartnerOpens is the count of opens of the other end of FIFO end fd (see OpenFIFO); ok
// is false if fd is not a FIFO's pipe end.
func (t *Table) FIFOPartnerOpens(fd int) (opens uint32, ok bool) {
	p, write, ok := t.Pipe(fd)
	if !ok || t.pipes[p].fifo == 0 {
		return 0, false
	}
	if write {
		return t.pipes[p].rOpens, true
	}
	return t.pipes[p].wOpens, true
}
