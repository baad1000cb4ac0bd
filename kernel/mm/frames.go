package mm

import "math/bits"

// PageSize is the size of a physical frame and of a user page.
const PageSize = 4096

const pageMask = PageSize - 1

// Frames hands out 4 KiB physical frames.
//
// Why a bitmap and not a free list threaded through the free frames: a bitmap detects every double
// free and every free of a frame the allocator never owned, and adding a 64 GiB range at boot
// costs one store per 64 frames instead of touching every frame (slow under TCG, and it would
// fault in all of the host's backing memory). The state of each frame is two bits in
// caller-provided storage (see MetaSize):
//
//	free bit  allocated bit
//	   0           0         not ours: never added, reserved, or beyond the storage
//	   1           0         free
//	   0           1         handed out by Alloc
//
// Alloc is O(1), not just amortised: a three-level summary of the free bitmap (one bit per
// non-empty 64-bit word, in the caller's storage; one bit per non-empty summary word, in l2 here;
// one bit per non-empty l2 word, in top) leads straight to the lowest free frame. Frames are thus
// handed out lowest address first, which keeps runs reproducible.
//
// The zero value manages nothing (Alloc fails) until Init gives it storage. A Frames is not safe
// for concurrent use.
type Frames struct {
	freeBits  uintptr // physical address of the free bitmap (groups*64 words)
	allocBits uintptr // physical address of the allocated bitmap (groups*64 words)
	summary   uintptr // physical address of the level-1 summary (groups words)
	groups    uintptr // number of level-1 summary words; frames managed = groups*framesPerGroup

	metaStart, metaEnd uintptr // the storage itself, page-rounded outward: never handed out

	l2  [l2Words]uint64  // bit g%64 of word g/64: summary word g is non-zero
	top [topWords]uint64 // bit i%64 of word i/64: l2[i] is non-zero

	total, free, highWater, doubleFrees, invalidFrees, ignored uint64
}

// FrameStats counts frames (not bytes).
type FrameStats struct {
	Total        uint64 // frames the allocator owns: free plus allocated
	Free         uint64
	Allocated    uint64
	HighWater    uint64 // the most frames allocated at one time
	DoubleFrees  uint64 // Free of a frame that was already free
	InvalidFrees uint64 // Free of an unaligned address or a frame the allocator does not own
	Ignored      uint64 // frames AddFree dropped because they lie beyond the storage given to Init
}

const (
	framesPerWord  = 64
	framesPerGroup = framesPerWord * 64 // frames behind one level-1 summary word: 16 MiB of RAM
	groupMetaWords = 64 + 64 + 1        // per group: free words, allocated words, summary word
	groupMetaBytes = groupMetaWords * 8

	l2Words   = 256 // 256*64 groups of 16 MiB: 256 GiB
	topWords  = l2Words / 64
	maxGroups = l2Words * 64

	// MaxPhys is the end of the physical address range a Frames can manage.
	MaxPhys = maxGroups * framesPerGroup * PageSize
)

// MetaSize returns how many bytes of storage Init needs to manage physical addresses below
// maxPhys: two bits per frame plus one summary bit per 64 frames, in units of 16 MiB of RAM
// (1032 bytes each). 64 GiB of RAM need 4 MiB + 32 KiB.
func MetaSize(maxPhys uintptr) uintptr {
	if maxPhys > MaxPhys {
		maxPhys = MaxPhys
	}
	frames := (maxPhys + pageMask) / PageSize // maxPhys <= MaxPhys: no overflow
	groups := (frames + framesPerGroup - 1) / framesPerGroup
	return groups * groupMetaBytes
}

// Init gives the allocator its bookkeeping storage: metaLen bytes at physical address meta
// (reached through DirectMap), which it zeroes. The storage decides how much RAM can be managed:
// MetaSize(maxPhys) bytes cover physical addresses below maxPhys; frames above are ignored (and
// counted in Stats().Ignored). The storage need not be reserved separately: AddFree never adds the
// pages it occupies. Init forgets everything the allocator knew before.
func (f *Frames) Init(meta, metaLen uintptr) {
	*f = Frames{}
	start := (meta + 7) &^ 7
	if start < meta || metaLen < start-meta {
		return
	}
	groups := (metaLen - (start - meta)) / groupMetaBytes
	if groups > maxGroups {
		groups = maxGroups
	}
	if groups == 0 {
		return
	}
	f.groups = groups
	f.freeBits = start
	f.allocBits = start + groups*64*8
	f.summary = start + groups*128*8
	end := start + groups*groupMetaBytes
	f.metaStart = start &^ pageMask
	f.metaEnd = (end + pageMask) &^ pageMask
	for a := start; a < end; a += 8 {
		*f.word(a) = 0
	}
}

// limit returns the first frame number the storage cannot describe.
func (f *Frames) limit() uintptr { return f.groups * framesPerGroup }

// AddFree gives the frames inside [start, end) to the allocator: a usable range of the firmware's
// memory map. The range shrinks inward to whole pages. Frames already owned (free or allocated)
// stay as they are; frame 0 and the pages of Init's storage are never added.
func (f *Frames) AddFree(start, end uintptr) {
	first := (start + pageMask) / PageSize
	if first < start/PageSize { // start+pageMask overflowed
		return
	}
	last := end / PageSize
	if first == 0 {
		first = 1 // physical page 0 is never handed out: a zero address always means "none"
	}
	if last > f.limit() {
		if beyond := max(first, f.limit()); beyond < last {
			f.ignored += uint64(last - beyond)
		}
		last = f.limit()
	}
	if first >= last {
		return
	}
	ms, me := f.metaStart/PageSize, f.metaEnd/PageSize
	f.setFree(first, min(last, ms))
	f.setFree(max(first, me), last)
}

// Reserve takes the frames touching [start, end) back out of the free pool: the kernel image,
// boot data, page tables built before the allocator existed. The range grows outward to whole
// pages. Frames already handed out by Alloc are not affected.
func (f *Frames) Reserve(start, end uintptr) {
	if end <= start {
		return
	}
	first := start / PageSize
	last := end/PageSize + min(end&pageMask, 1)
	f.clearFree(first, min(last, f.limit()))
}

// Alloc returns the lowest free frame, zero-filled through the direct map, or ok=false when none is
// left.
func (f *Frames) Alloc() (pa uintptr, ok bool) {
	t := 0
	for t < topWords && f.top[t] == 0 {
		t++
	}
	if t == topWords {
		return 0, false
	}
	i2 := (uintptr(t)*64 + uintptr(bits.TrailingZeros64(f.top[t]))) % l2Words
	g := i2*64 + uintptr(bits.TrailingZeros64(f.l2[i2]))
	if f.l2[i2] == 0 || g >= f.groups {
		return 0, false // summaries disagree: cannot happen unless the storage was overwritten
	}
	sum := *f.word(f.summary + g*8)
	w := g*64 + uintptr(bits.TrailingZeros64(sum))
	if sum == 0 {
		return 0, false
	}
	fw := f.word(f.freeBits + w*8)
	if *fw == 0 {
		return 0, false
	}
	bit := uintptr(bits.TrailingZeros64(*fw))
	*fw &^= 1 << bit
	if *fw == 0 {
		f.markEmpty(w)
	}
	*f.word(f.allocBits + w*8) |= 1 << bit
	f.free--
	if used := f.total - f.free; used > f.highWater {
		f.highWater = used
	}
	pa = (w*framesPerWord + bit) * PageSize
	clear(f.page(pa)[:])
	return pa, true
}

// Free returns a frame that Alloc handed out. It reports false, changes nothing and counts the
// event when pa is unaligned, not owned by the allocator (never added, reserved), or already free.
func (f *Frames) Free(pa uintptr) bool {
	n := pa / PageSize
	if pa&pageMask != 0 || n >= f.limit() {
		f.invalidFrees++
		return false
	}
	w, mask := n/framesPerWord, uint64(1)<<(n%framesPerWord)
	ab := f.word(f.allocBits + w*8)
	if *ab&mask == 0 {
		if *f.word(f.freeBits + w*8)&mask != 0 {
			f.doubleFrees++
		} else {
			f.invalidFrees++
		}
		return false
	}
	*ab &^= mask
	fw := f.word(f.freeBits + w*8)
	if *fw == 0 {
		f.markNonEmpty(w)
	}
	*fw |= mask
	f.free++
	return true
}

// Stats returns the allocator's counters.
func (f *Frames) Stats() FrameStats {
	return FrameStats{
		Total:        f.total,
		Free:         f.free,
		Allocated:    f.total - f.free,
		HighWater:    f.highWater,
		DoubleFrees:  f.doubleFrees,
		InvalidFrees: f.invalidFrees,
		Ignored:      f.ignored,
	}
}

// Limit returns the end of the physical range the storage given to Init can describe.
func (f *Frames) Limit() uintptr { return f.limit() * PageSize }

// setFree marks the frames [first, last) free unless they are already owned, a word at a time.
func (f *Frames) setFree(first, last uintptr) {
	for first < last {
		w := first / framesPerWord
		mask := rangeMask(first, last)
		fw := f.word(f.freeBits + w*8)
		added := mask &^ *fw &^ *f.word(f.allocBits + w*8)
		if added != 0 {
			if *fw == 0 {
				f.markNonEmpty(w)
			}
			*fw |= added
			n := uint64(bits.OnesCount64(added))
			f.total += n
			f.free += n
		}
		first = (w + 1) * framesPerWord
	}
}

// clearFree takes the free frames among [first, last) out of the allocator, a word at a time.
func (f *Frames) clearFree(first, last uintptr) {
	for first < last {
		w := first / framesPerWord
		fw := f.word(f.freeBits + w*8)
		removed := *fw & rangeMask(first, last)
		if removed != 0 {
			*fw &^= removed
			if *fw == 0 {
				f.markEmpty(w)
			}
			n := uint64(bits.OnesCount64(removed))
			f.total -= n
			f.free -= n
		}
		first = (w + 1) * framesPerWord
	}
}

// rangeMask returns the bits of first's 64-frame word that lie in [first, last).
func rangeMask(first, last uintptr) uint64 {
	mask := ^uint64(0) << (first % framesPerWord)
	if wordEnd := (first/framesPerWord + 1) * framesPerWord; last < wordEnd {
		mask &= ^uint64(0) >> (wordEnd - last)
	}
	return mask
}

// markNonEmpty records in the summaries that free-bitmap word w has gained its first free frame.
func (f *Frames) markNonEmpty(w uintptr) {
	g := w / 64
	*f.word(f.summary + g*8) |= 1 << (w % 64)
	i2 := (g / 64) % l2Words
	f.l2[i2] |= 1 << (g % 64)
	f.top[(i2/64)%topWords] |= 1 << (i2 % 64)
}

// markEmpty records in the summaries that free-bitmap word w has lost its last free frame.
func (f *Frames) markEmpty(w uintptr) {
	g := w / 64
	sum := f.word(f.summary + g*8)
	*sum &^= 1 << (w % 64)
	if *sum != 0 {
		return
	}
	i2 := (g / 64) % l2Words
	f.l2[i2] &^= 1 << (g % 64)
	if f.l2[i2] == 0 {
		f.top[(i2/64)%topWords] &^= 1 << (i2 % 64)
	}
}

func (f *Frames) word(pa uintptr) *uint64         { return (*uint64)(phys(pa)) }
func (f *Frames) page(pa uintptr) *[PageSize]byte { return (*[PageSize]byte)(phys(pa)) }
