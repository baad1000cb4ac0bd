package signal

// Saved is what a signal frame keeps beside the registers, on every arch.
type Saved struct {
	Info  Info
	Mask  Set   // the interrupted code's mask, which rt_sigreturn restores
	Stack Stack // uc_stack: the alternate stack as the handler sees it (AltStack.Saved)
}

// Call is the state a handler starts in, which the arch's glue loads into the trap frame.
type Call struct {
	PC, SP        uint64 // the handler, and the frame's base
	Sig, Info, Uc uint64 // the handler's arguments: the signal, &siginfo, &ucontext
	FP, LR        uint64 // arm64 only: x29 (the frame record) and x30 (where the handler returns)
}
