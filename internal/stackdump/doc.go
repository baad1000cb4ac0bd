// Package stackdump reads the guest's reply to the "stacks" control command (the stacks of
// every CPU and thread, as trace/agent sends them), symbolizes it with the image the guest
// runs, and prints it.
//
//	s, err := stackdump.Parse(reply)        // the RESP frame's payload
//	err = stackdump.Symbolize(s, "app.elf") // optional: without it, addresses only
//	stackdump.Format(os.Stdout, s)
//
// A stack is the leaf pc, looked up as is (it is the interrupted or saved context's own
// instruction), then the frame-pointer chain's return addresses, each looked up at pc-1
// (inside the call), with the functions inlined there, innermost first. When the leaf's
// function had not linked its frame into the chain (a frameless leaf, a prologue), its caller
// is recovered from the pclntab's SP delta where the registers allow it (profile.LeafCaller;
// on amd64 that needs the words at SP, which a stacks entry does not carry, so only arm64's
// link register gives one).
package stackdump
