// Package p9fs is a file system over a 9P2000.L session (package p9): a host directory that
// QEMU shares with virtio-9p, mounted in the kernel's namespace (package vfs).
//
// # Waiting without a kernel stack
//
// The kernel keeps no stack for a blocked thread: a system call that must wait records what it
// waits for, gives up its CPU and is completed later (futexes, pipes and the trace ports work
// so). A file system call can need several round trips to the host (a walk per path name, a
// getattr, an open, a read), and the path resolver above it is ordinary synchronous code. So
// the system call is restarted instead, and replayed:
//
//   - Every call into FS names its waiter (the thread) and is logged in the waiter's call log,
//     keyed by what the call is and its arguments.
//   - A call that needs the host starts its request and returns EQUEUED. The kernel sends the
//     request, blocks the thread, and when the reply is in (Complete, from the device's
//     interrupt) wakes it; it then runs the whole system call again from the start.
//   - On the rerun, each call finds its logged outcome at the same place in the log and returns
//     it at once, until the first call not yet answered: that one starts the next request. A
//     call that differs from the one logged at its place (another thread changed something in
//     between) drops the rest of the log and asks the host afresh.
//   - End drops the log when the system call is over.
//
// So a system call makes progress one round trip per run and never repeats a request whose
// answer it has: an exclusive create that succeeded stays "created by this call" on the rerun.
// The code between two calls must not change anything of its own before the last call it makes
// (the vfs operations and the system calls above them change state only after every lookup).
//
// Outcomes are small (an errno, an inode, a count); the data of a Read, Readdir or Readlink
// stays in its tag's reply buffer, held until End. Attributes live in the node they belong to.
//
// # Nodes
//
// A node is a file the kernel has looked up: the fid of a walk to it, its qid and its last
// attributes, where it was found (parent and name, for getcwd), the fids it is open with, and
// how many references the layer above holds (open files, working directories). Lookups always
// ask the host (a Twalk, so files made or removed on the host are seen at once); a walk to a
// file that already has a node keeps that node and clunks the new fid. An inode number is a
// node's slot and generation, so a node reused for another file never answers for the old one
// (ESTALE). Nodes nobody references are reused, least recently used first.
//
// It is kernel-mode Go: an FS holds integers and fixed arrays only, buffers are reached by
// address, nothing allocates. It does no locking: the caller serialises all calls.
package p9fs
