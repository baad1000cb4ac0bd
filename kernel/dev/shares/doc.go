// Package shares is the shared host directories: virtio-9p devices mounted at boot, their
// interrupt, which hands each reply to its share and wakes the thread that waits for it, and the
// bracket every system call that may reach a share runs in (BeginFiles, EndFiles). A call that
// waited runs again once its reply is in: the kernel's system-call layer does that (WaitShare's
// completion).
package shares
