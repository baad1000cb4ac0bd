// Package threadsnap reads a snapshot of a running guest's threads: the reply to the "stacks"
// control command (every CPU's and thread's state and stack, as trace/agent sends them). It
// decodes the reply (snapshot.go), symbolizes it with the image the guest runs (symbolize.go)
// and prints it (format.go); "unitrace stacks" is its command.
//
//	s, err := threadsnap.Parse(reply)        // the RESP frame's payload
//	err = threadsnap.Symbolize(s, "app.elf") // optional: without it, addresses only
//	threadsnap.Format(os.Stdout, s)
//
// A stack is the leaf pc, looked up as is (it is the interrupted or saved context's own
// instruction), then the frame-pointer chain's return addresses, each looked up at pc-1
// (inside the call), with the functions inlined there, innermost first. When the leaf's
// function had not linked its frame into the chain (a frameless leaf, a prologue), its caller
// is recovered from the pclntab's SP delta where the registers allow it (profile.LeafCaller;
// on amd64 that needs the words at SP, which a stacks entry does not carry, so only arm64's
// link register gives one).
package threadsnap
