package signal

// Saved is what a signal frame keeps beside the registers, on every arch.
type Saved struct {
	Info  Info
	Mask  Set   // the interrupted code's mask, which rt_sigreturn restores
	Stack Stack // uc_stack: the alternate stack as the handler sees it (AltStack.Saved)
}

// Call is the state a handler starts in: the arch's glue loads it into the trap frame.
type Call struct {
	PC  uint64 // the handler
	SP  uint64 // the frame's base
	Sig uint64 // the handler's arguments: the signal, &siginfo, &ucontext
	Info,
	Uc uint64
	FP uint64 // arm64: x29, the frame record
	LR uint64 // arm64: x30, where the handler returns
}
