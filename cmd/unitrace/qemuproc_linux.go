package main

import "syscall"

// qemuProcAttr starts QEMU in a process group of its own, so the terminal's ^C (SIGINT to the
// foreground group) reaches the launcher alone, which passes it to the program first. QEMU's
// standard input is /dev/null and its output pipes to the launcher, so it never touches the
// terminal from the background group (no SIGTTIN or SIGTTOU, no raw mode to undo). Pdeathsig:
// a launcher killed outright must not leave QEMU running where no ^C reaches it.
func qemuProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
