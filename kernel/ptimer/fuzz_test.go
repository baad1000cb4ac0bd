package ptimer

import "testing"

// FuzzExpirationsAccounted drives one periodic POSIX timer with a random sequence of checks and
// deliveries (each byte: an op and a time step). Whatever the sequence, no expiry is lost or
// counted twice: the signals fired plus the overruns delivered plus what is still counted in a
// pending signal equal the expirations that the time passed so far held, by arithmetic on the
// period.
func FuzzExpirationsAccounted(f *testing.F) {
	f.Add(int64(7), int64(3), []byte{0x10, 0x21, 0x05, 0xff, 0x80})
	f.Add(int64(1), int64(1), []byte{0x01, 0x02, 0x03})
	f.Fuzz(func(t *testing.T, value, interval int64, ops []byte) {
		value, interval = 1+abs(value)%1000, 1+abs(interval)%1000
		var tb Table
		id, _ := tb.Create(wallClock, Event{Notify: SigevSignal, Signo: 14})
		tb.Arm(id, value, interval, false, 0)
		var now, fired, overruns int64
		queued := false
		for _, op := range ops {
			now += int64(op & 0x3f)
			switch op >> 6 {
			case 0, 1:
				var due [1]int32
				if tb.ExpiredWall(now, due[:]) == 1 {
					if e := tb.Expire(int(due[0]), now); e.Fire {
						if queued {
							t.Fatal("fired with a signal pending")
						}
						fired++
						queued = true
						tb.Queued(id, 1)
					}
				}
			case 2:
				if got, ov, _, _ := tb.Deliver(1, 14, at(now)); got >= 0 {
					if !queued {
						t.Fatal("delivered without a pending signal")
					}
					overruns += int64(ov)
					queued = false
				}
			case 3:
				if left, _, _ := tb.Left(id, now); left <= 0 || left > max(value, interval) {
					t.Fatalf("Left = %d with interval %d", left, interval)
				}
			}
		}
		// Count what is due now without delivering: a final check and delivery.
		if got, ov, _, _ := tb.Deliver(1, 14, at(now)); got >= 0 {
			overruns += int64(ov)
		} else if n := tb.count(id, now); n > 0 {
			fired++
			overruns += n - 1
		}
		want := int64(0)
		if now >= value {
			want = (now-value)/interval + 1
		}
		if fired+overruns != want {
			t.Fatalf("fired %d + overruns %d != %d expirations by %d", fired, overruns, want, now)
		}
	})
}

func abs(x int64) int64 {
	if x < 0 {
		return -(x + 1)
	}
	return x
}
