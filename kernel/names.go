package kernel

// syscallName names a system call number for messages.
// TODO(lead): generate the full table.
func syscallName(nr uint64) string {
	return "?"
}
