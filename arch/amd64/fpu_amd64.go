package amd64

func syncX87(fx *[512]byte)
func loadX87(fx *[512]byte)

// SyncX87 brings the x87 part of f's FXSAVE image up to date from the CPU, whose x87 state is
// the running thread's (the trap stubs save and restore only the SSE registers and MXCSR, and
// kernel code never uses the x87 unit): before the context in f leaves the CPU (a switch, a
// clone) or is shown to the program (a signal frame).
func SyncX87(f *Frame) { syncX87(&f.FX) }

// LoadX87 puts f's whole FXSAVE image into the CPU: for the thread that runs next here (a
// switch), or the context that rt_sigreturn restored.
func LoadX87(f *Frame) { loadX87(&f.FX) }
