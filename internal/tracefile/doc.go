// Package tracefile reads unitrace recordings on the host: the frames that
// came off the guest's org.unitrace.data port (docs/trace-format.md),
// preceded by one HOST frame the launcher writes.
//
// A Reader walks a recording (a file or a live socket) frame by frame and
// hands out events: the HOST, HELLO and DICT frames, every record of every
// DATA frame with its time converted to nanoseconds since boot, transport
// LOST, STATS, CLOCK and END frames, and errors with their offsets (the
// reader resynchronises and goes on). Accounting checks each CPU's sequence
// numbers against the LOST records and frames; Load reads a whole
// recording and merges the CPUs by time. Image symbolizes stack words with
// the image's own pclntab and refuses an image whose GNU build id is not the
// one in HELLO.
//
// This is host code: it allocates freely and never runs in the guest.
package tracefile
