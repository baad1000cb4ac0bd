package fs

import "github.com/unitrace/unitrace/kernel/abi"

// What reading and writing the character devices the kernel serves does (drivers/char/mem.c,
// drivers/char/random.c). A file system only stores their inodes; the system call layer asks
// here when a program opens, reads or writes one.

// KnownDevice reports whether the kernel serves character device rdev; opening any other
// device fails with ENXIO, as Linux does for a device number without a driver.
func KnownDevice(rdev uint64) bool {
	switch rdev {
	case DevNull, DevZero, DevFull, DevRandom, DevURandom:
		return true
	}
	return false
}

// ReadDevice reads from character device rdev into dst: /dev/null is always at its end (0),
// /dev/zero and /dev/full read as zeros; for /dev/random and /dev/urandom it returns random=true
// and the caller fills dst from the kernel's random source.
func ReadDevice(rdev uint64, dst []byte) (n int, random bool, errno int) {
	switch rdev {
	case DevNull:
		return 0, false, 0
	case DevZero, DevFull:
		clear(dst)
		return len(dst), false, 0
	case DevRandom, DevURandom:
		return len(dst), true, 0
	}
	return 0, false, abi.ENXIO
}

// WriteDevice writes count bytes to character device rdev: /dev/full is always full (ENOSPC);
// the others take and drop everything (writing to /dev/random and /dev/urandom mixes the bytes
// into Linux's pool; here they are dropped, which the program cannot tell apart).
func WriteDevice(rdev uint64, count int) (int, int) {
	switch rdev {
	case DevFull:
		return 0, abi.ENOSPC
	case DevNull, DevZero, DevRandom, DevURandom:
		return count, 0
	}
	return 0, abi.ENXIO
}

// The random devices' ioctls (include/uapi/linux/random.h), which the program's root may all
// make. Linux's random.c answers any other request on them EINVAL.
const (
	RNDGETENTCNT   = 0x80045200 // the entropy count, an int: PoolReadyBits
	RNDADDTOENTCNT = 0x40045201 // credit an int's worth of bits: EINVAL if negative
	RNDADDENTROPY  = 0x40085203 // struct rand_pool_info: credit, size, then the bytes to mix
	RNDZAPENTCNT   = 0x5204
	RNDCLEARPOOL   = 0x5206
	RNDRESEEDCRNG  = 0x5207
)

// PoolReadyBits is RNDGETENTCNT's answer once the generator is seeded, which the kernel's is
// from boot: Linux since 5.18 reports the pool's full 256 bits (POOL_READY_BITS).
const PoolReadyBits = 256

// IsRandomDevice reports whether rdev is /dev/random or /dev/urandom, the devices whose ioctls
// RandomIoctl answers.
func IsRandomDevice(rdev uint64) bool { return rdev == DevRandom || rdev == DevURandom }
