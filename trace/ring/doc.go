// Package ring is the per-CPU trace buffer: one single-producer,
// single-consumer byte ring per CPU.
//
// The producer is the CPU itself, in interrupt context or with interrupts
// masked; the kernel guarantees one producer per ring and drops re-entrant
// emits before they reach Reserve (it reports them with Drop). The consumer
// is a drain goroutine that may run on another CPU.
//
// # Memory and positions
//
// Ring memory is raw memory handed over as (address, size), size a power of
// two (DefaultSize, settable at boot). It holds no Go pointers, so the
// garbage collector never looks at it and producer stores need no write
// barriers. The control block (Ring) is a plain struct the kernel keeps in a
// fixed array, one per CPU; its zero value is a ring that does not exist
// yet, whose Reserve counts an early drop.
//
// head, tail and start are virtual byte positions that only grow; the byte
// at position p lives at offset p&(size-1). Records are 8-byte aligned and
// never straddle the end of the ring: a record that would is preceded by a
// PAD record (tpid 0) that fills the ring to its end. A PAD may be only 8 or
// 16 bytes long, so of a PAD only size and tpid are meaningful.
//
// # Protocol
//
// Reserve writes at head without publishing; Commit publishes with an atomic
// store of head (release). A consumer loads head (acquire), reads [tail,
// head), and gives space back with an atomic store of tail. Go's sync/atomic
// is sequentially consistent, stronger than this needs.
//
// # Loss accounting
//
// Every record the producer is asked for takes the next per-CPU sequence
// number, dropped ones included. Drops accumulate into one pending LOST
// range [firstSeq, firstSeq+count); the next successful Reserve writes a
// LOST record for it just before the new record (both must fit, or both are
// dropped and the range grows). So on the host, every gap in a CPU's seq is
// exactly a LOST record's range, or (flight mode) an overwritten range.
//
// # Flight-recorder mode and record boundaries
//
// In flight mode the producer ignores tail and overwrites the oldest
// records. To make the oldest surviving record findable without guessing,
// the producer itself keeps start, the position of the oldest complete
// record: before writing over old bytes it walks start forward record by
// record (sizes it wrote itself, validated) until the new bytes fit, counts
// the records it passes as overwritten, and publishes start before it
// writes. Every value start takes is therefore a proven record boundary, and
// a snapshot walks [start, head) from it. If a size read during that walk is
// invalid (corrupted memory), the producer gives up on the old contents and
// moves start to head, counting a resync; it never loops or faults.
//
// A snapshot wants a quiescent producer (the kernel pauses emits, as
// research §5.4 plans). Snapshot still checks: it re-reads start after
// copying and, if the producer evicted anything meanwhile, retries a few
// times and then reports failure instead of returning torn records.
package ring
