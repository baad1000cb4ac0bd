package kernel

import (
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/cpio"
	"github.com/unitrace/unitrace/kernel/fs/packed"
	"github.com/unitrace/unitrace/kernel/fs/vfs"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/options"
)

// The files packed into the image (`unitrace run -files HOSTDIR:GUESTDIR`, kernel/fs/packed).
//
// HOOK for the file-system boot code: call mountPacked exactly once, after the root file system
// is up and before the program starts: in initFiles (files.go), right after / has /tmp and /dev,
// as mountPacked(&rootNS, &fsPages, now). p is the Pages the root file system takes its pages
// from, now the boot's wall-clock time. Nothing else calls it.

// mountPacked unpacks the image's archive into ns: each packed directory becomes a read-only
// memfs mounted at its path. The archive is part of the image's read-only data, below
// runtime.end, so the frame allocator has never handed out its memory (core.InitMemory starts above
// the image); once the files are copied out, its whole pages go to the allocator (the image runs
// at its load addresses, which are physical). An archive that does not unpack stops the boot,
// naming the record at fault: the program would otherwise run without its files.
func mountPacked(ns *vfs.Namespace, p vfs.Pages, now fs.Timespec) {
	archive := packed.Archive()
	if len(archive) == 0 {
		return
	}
	r := packed.Mount(ns, p, archive, now)
	if !r.OK() {
		l := klog.Log().S("packed files: ")
		if r.Format != cpio.OK {
			l.S(r.Format.String())
		} else {
			l.S("errno ").D(int64(r.Errno))
		}
		if rec, err := cpio.At(archive, r.Record); err == cpio.OK {
			l.S(" at /").BS(rec.Name(archive))
		} else if r.Record >= 0 {
			l.S(" at offset ").D(int64(r.Record))
		}
		l.NL()
		klog.BootFault("the files packed into the image cannot be unpacked")
	}
	size := len(archive)
	start, end := packed.Release()
	core.Frames.AddFree(start, end)
	if options.Kernel.Verbose {
		klog.Log().S("packed files: ").D(int64(r.Dirs)).S(" directories from a ").U(uint64(size) >> 10).S(" KiB archive").NL()
	}
}
