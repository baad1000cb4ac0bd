// Package files serves the system calls on descriptors: files and paths, pipes and FIFOs,
// sockets and socket pairs, netlink, epoll and eventfds, timerfds, file locks, and the calls
// that move bytes between descriptors (splice, tee, sendfile, copy_file_range). Its handlers
// take the system call's frame and arguments as package kernel/syscalls' do; the generated
// tables there name them as files.Name, and the completions of the waits they block in are
// handed down at boot (the kernel's wiring.go).
package files
