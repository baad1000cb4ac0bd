package ptimer

// The armed timers, by clock kind: the wall-clock ones in a deadline queue, the CPU-time ones
// in a bitmap that a tick scans.

// track records timer id's next expiry where the checks look for it.
func (tb *Table) track(id int) {
	t := &tb.t[id]
	if t.next == 0 {
		tb.untrack(id)
		return
	}
	if t.Clock.Kind == Wall {
		tb.wall.Add(int32(id), t.next)
		return
	}
	tb.cpu[id/64] |= 1 << uint(id%64)
}

func (tb *Table) untrack(id int) {
	tb.wall.Remove(int32(id))
	tb.cpu[id/64] &^= 1 << uint(id%64)
}

func (tb *Table) disarm(id int) {
	tb.t[id].next, tb.t[id].interval = 0, 0
	tb.untrack(id)
}

// NextWall is the earliest expiry of an armed wall-clock timer, on the monotonic clock.
func (tb *Table) NextWall() (int64, bool) { return tb.wall.Next() }

// ExpiredWall takes the wall-clock timers due at now out of the deadline queue, earliest
// first, stores their ids (slots) in out and returns how many (at most len(out)). The caller
// must Expire each: that counts the expiry and puts a periodic timer back in the queue.
func (tb *Table) ExpiredWall(now int64, out []int32) int { return tb.wall.Expired(now, out) }

// CPUArmed reports whether any CPU-time timer is armed.
func (tb *Table) CPUArmed() bool {
	for _, w := range tb.cpu {
		if w != 0 {
			return true
		}
	}
	return false
}

// NextCPU returns the first armed CPU-time timer after id (-1 to start), or -1 for none.
func (tb *Table) NextCPU(id int) int {
	for i := id + 1; i < slots; i++ {
		w := tb.cpu[i/64] >> uint(i%64)
		if w == 0 {
			i = (i/64+1)*64 - 1
			continue
		}
		if w&1 != 0 {
			return i
		}
	}
	return -1
}
