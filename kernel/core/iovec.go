package core

import (
	"github.com/unitrace/unitrace/kernel/abi"
)

// MaxRW is the most bytes one read or write moves, as Linux's MAX_RW_COUNT (INT_MAX rounded
// down to a page).
const MaxRW = 0x7fff_f000

// iovecs: struct iovec is two 8-byte words, base and length; a call takes at most UIO_MAXIOV.
const (
	IovecSize = 16
	UIOMaxIOV = 1024
)

// ImportIovec reads and checks the iovec array of cnt entries at iov as Linux's import_iovec:
// more than UIO_MAXIOV entries EINVAL, an array it cannot read EFAULT, any length negative as an
// ssize_t EINVAL, then any buffer not wholly in the user half EFAULT (access_ok; one lone buffer
// is checked for the length a call moves at most, maxRW). The buffers' pages are not touched: a
// call faults on them only when it moves bytes there. It returns the array's bytes, which must
// not outlive the system call, and the sum of the lengths.
func ImportIovec(iov, cnt uintptr) (vec []byte, total uint64, errno int) {
	if cnt > UIOMaxIOV {
		return nil, 0, abi.EINVAL
	}
	vec, ok := UserBytes(iov, cnt*IovecSize, false)
	if !ok {
		return nil, 0, abi.EFAULT
	}
	for i := uintptr(0); i < cnt; i++ {
		if int64(LE64(vec[i*IovecSize+8:])) < 0 {
			return nil, 0, abi.EINVAL
		}
	}
	for i := uintptr(0); i < cnt; i++ {
		base, size := uintptr(LE64(vec[i*IovecSize:])), uintptr(LE64(vec[i*IovecSize+8:]))
		total += uint64(size)
		if cnt == 1 {
			size = min(size, MaxRW)
		}
		if !AccessOK(base, size) {
			return nil, 0, abi.EFAULT
		}
	}
	return vec, total, 0
}

// UserIOLen is the byte count of a buffer, or of an iovec array's buffers; false for a bad
// array (EINVAL or EFAULT in errno).
func UserIOLen(buf, count uintptr, vec bool) (total uint64, errno int) {
	if !vec {
		return uint64(count), 0
	}
	_, total, errno = ImportIovec(buf, count)
	return total, errno
}

// GatherUser fills dst from user memory, from byte skip of the buffer or iovec array on.
func GatherUser(dst []byte, buf, count uintptr, vec bool, skip uint64) bool {
	return moveUser(dst, buf, count, vec, skip, false)
}

// ScatterUser copies src into the buffer or iovec array.
func ScatterUser(src []byte, buf, count uintptr, vec bool) bool {
	return moveUser(src, buf, count, vec, 0, true)
}

func moveUser(b []byte, buf, count uintptr, vec bool, skip uint64, toUser bool) bool {
	nseg := 1
	var segs []byte
	if vec {
		var ok bool
		if segs, ok = UserBytes(buf, count*IovecSize, false); !ok {
			return false
		}
		nseg = int(count)
	}
	for i := 0; i < nseg && len(b) > 0; i++ {
		base, size := buf, uint64(count)
		if vec {
			base, size = uintptr(LE64(segs[i*IovecSize:])), LE64(segs[i*IovecSize+8:])
		}
		if skip >= size {
			skip -= size
			continue
		}
		base, size = base+uintptr(skip), size-skip
		skip = 0
		k := min(uint64(len(b)), size)
		u, ok := UserBytes(base, uintptr(k), toUser)
		if !ok {
			return false
		}
		if toUser {
			copy(u, b)
		} else {
			copy(b, u)
		}
		b = b[k:]
	}
	return true
}

// le64 reads a little-endian word.
func LE64(b []byte) uint64 {
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}
