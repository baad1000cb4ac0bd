package main

// rawTime: arm64 has no time(2).
func rawTime() (int64, bool) { return 0, false }
