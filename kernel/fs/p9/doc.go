// Package p9 is the message layer of a 9P2000.L client: what the kernel needs to use a
// directory QEMU exports with virtio-9p (-fsdev local,id=F,path=DIR,security_model=none
// -device virtio-9p-device,fsdev=F,mount_tag=T) as a file system. It encodes T-messages,
// decodes and checks R-messages, and keeps a session's state: the negotiated msize, a fixed
// table of fids and one small state machine per operation in flight. It knows nothing of the
// transport, which carries each request and its reply (one virtqueue, a request buffer the
// device reads and a reply buffer it writes).
//
// Three layers, each usable alone:
//
//   - Put* encode one T-message into a caller's buffer; ParseReply checks a reply's header
//     against its request (size, msize, tag, type) and Reply's R-message methods decode its
//     body; NextDirent walks an Rreaddir's entries. Every malformed reply is rejected with its
//     own Err, never a panic (FuzzReply).
//   - Errno, OpenFlags, Attr.Stat, Statfs.FS, QidMode and DirentType map 9P's errors, flags,
//     attributes and types to Linux's, as package fs holds them.
//   - Client runs operations: Version, Attach, Walk (a path of any length, in Twalks of at most
//     MaxWalk names), Open, Create, Lopen, Read, Write, Readdir, Getattr, Setattr, Mkdir,
//     Symlink, Readlink, Link, Renameat, Unlinkat, Statfs, Fsync, Clunk, Remove and Flush.
//
// How the kernel drives a Client (the calling thread blocks while the device works, and its
// system call resumes on the device's interrupt):
//
//	tag, n, errno := c.Open(req[t], rootFid, path, flags) // req[t]: tag t's request buffer
//	... post req[tag][:n] and resp[tag] (msize bytes each) on the virtqueue, block ...
//	// on completion, with m the used length:
//	res := c.Reply(tag, resp[tag][:m], req[tag])
//	if !res.Done { post req[tag][:res.Next] again, block again }
//	// else res.Errno, res.Fid, res.Qid, res.Data (a slice of resp[tag]) ...
//
// Tags are 0..MaxOps-1, so a transport can keep one pair of buffers per tag. Version must be
// the first operation (it proposes the buffers' size as msize), then Attach for the root fid.
// Walk does not follow symbolic links; the path resolver above it does, walking to the link
// and reading it. A fid that is open (Open, Create, Lopen) cannot be walked from: 9P forbids
// it, so the resolver keeps a walked fid for a directory it wants to resolve names in.
//
// It is kernel-mode Go: every value is pointer-free or a slice of a caller's buffer, nothing
// allocates or needs a write barrier, sizes are bounded by msize, MaxOps, MaxFids and MaxPath.
// The Client does no locking; its caller serialises calls (the kernel lock).
//
// The reference for the protocol is the 9P2000.L description, Linux's 9p client
// (include/net/9p/9p.h, net/9p/client.c) and QEMU's server (hw/9pfs), whose behaviour the
// tests' server imitates with real files.
package p9
