// Package ptimer keeps the process's timers: the POSIX timers of timer_create and the three
// interval timers of setitimer, on wall-time clocks or on CPU-time clocks. It decides when each
// expires, how many expirations a late check or a pending signal swallowed (the overrun), and
// what each timer's signal is; the kernel reads the clocks, sends the signals and asks it.
//
// Every time is in nanoseconds on the timer's own clock: the monotonic clock for the wall
// clocks (the kernel turns an absolute CLOCK_REALTIME time into a monotonic one: its wall clock
// never steps), or a CPU-time clock (a thread's, the process's, or the process's user time).
//
// The package is kernel-mode Go: a Table holds only integers, never allocates and never panics
// on any input. It does no locking: the caller serialises all calls.
package ptimer
