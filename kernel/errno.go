package kernel

func neg(errno int) uint64 { return uint64(-int64(errno)) }
