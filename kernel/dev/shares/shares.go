package shares

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/options"
	"github.com/unitrace/unitrace/kernel/tp"

	"github.com/unitrace/unitrace/boot"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/p9"
	"github.com/unitrace/unitrace/kernel/fs/p9fs"
	"github.com/unitrace/unitrace/kernel/fs/vfs"
	"github.com/unitrace/unitrace/kernel/virtio"
)

// Shared host directories (`unitrace run -share HOSTDIR:GUESTDIR[:ro]`): each is a
// virtio-9p-device whose mount tag a unitrace.share=TAG:GUESTDIR[:ro] option names. At boot the
// kernel brings each device up, opens its 9P session by polling, and mounts it on GUESTDIR
// (made where missing). Then a system call whose file system call needs the host gets
// fs.EQUEUED back: the thread blocks (waitShare), the device's interrupt hands the reply to the
// share (p9fs) and wakes the thread, and the system call runs again (see package p9fs).
//
// Each share has MaxOps request and reply buffers of shareMsize bytes, physically contiguous
// after its rings, so one Tread or Twrite moves up to 64 KiB.

const (
	shareMsize   = 64<<10 + p9.IOHeaderSize
	shareBufs    = p9.MaxOps * shareMsize
	shareMemSize = virtio.NinePMemSize + 2*shareBufs
	// MountTimeout bounds the boot's wait for a session (QEMU answers in microseconds).
	MountTimeout = 10e9
)

// shareDev is one shared directory's device and its session.
type shareDev struct {
	base   uintptr // virtio-mmio window
	mem    uintptr // physical block: rings, then the request buffers, then the replies
	dev    virtio.NinePDevice
	fs     int // the share's index in rootNS
	ready  bool
	tokens [p9.MaxOps]virtio.Token
}

var (
	shareDevs  [vfs.MaxShares]shareDev
	nShareDevs int
	// shareWords are the command line's unitrace.share options, by option index.
	shareWords  [vfs.MaxShares]int
	nShareWords int
	// shareDirBuf holds a mount point's path while it is made (a boot stack has no room for
	// it).
	shareDirBuf [fs.PathMax]byte
)

// Option takes a unitrace.share option (option index i); it reports whether o was one.
func Option(i int, o string) bool {
	if len(o) < len(boot.ShareOption) || o[:len(boot.ShareOption)] != boot.ShareOption {
		return false
	}
	if _, ok := boot.ParseShare(o); !ok {
		klog.Log().S("unitrace.share: want TAG:GUESTDIR or TAG:GUESTDIR:ro with GUESTDIR absolute, got ").S(o).NL()
		return true
	}
	if nShareWords == len(shareWords) {
		klog.Log().S("unitrace.share: more than ").D(int64(len(shareWords))).S(" shares; ignored: ").S(o).NL()
		return true
	}
	shareWords[nShareWords] = i
	nShareWords++
	return true
}

// Memory probes for the virtio-9p devices and returns how much contiguous memory they
// need. It runs at boot, before the frame allocator exists.
func Memory() uintptr {
	if nShareWords == 0 {
		return 0
	}
	window, slots := machine.VirtioWindow()
	var found [vfs.MaxShares]uintptr
	n := virtio.FindDevices(&machine.Bus, window, slots, virtio.DeviceID9P, found[:])
	for i := 0; i < n; i++ {
		shareDevs[i] = shareDev{base: found[i], fs: -1}
	}
	nShareDevs = n
	return uintptr(n) * core.PageUp(shareMemSize)
}

// Init brings the devices up in block and mounts each on the directory its option names.
// A share that cannot be mounted stops the boot: the program would otherwise write its results
// into the memory file system, where nobody sees them.
func Init(block uintptr) {
	for i := 0; i < nShareDevs; i++ {
		d := &shareDevs[i]
		d.mem = block + uintptr(i)*core.PageUp(shareMemSize)
		cfg := virtio.NinePConfig{Base: d.base, MemPA: d.mem, MemSize: virtio.NinePMemSize}
		if err := d.dev.Init(&machine.Bus, &machine.Bus, cfg); err != virtio.OK {
			klog.Log().S("shared directory: virtio-9p at ").X(uint64(d.base)).S(": ").S(err.String()).NL()
			klog.BootFault("a shared directory's device does not start")
		}
	}
	for k := 0; k < nShareWords; k++ {
		s, _ := boot.ParseShare(options.Cmdline.Option(shareWords[k]))
		d := shareByTag(s.Tag)
		if d == nil {
			klog.Log().S("shared directory: no virtio-9p device has the mount tag ").S(s.Tag).NL()
			klog.BootFault("a shared directory is missing")
		}
		if errno := mountShare(d, s); errno != 0 {
			klog.Log().S("shared directory ").S(s.Dir).S(": errno ").D(int64(errno)).NL()
			klog.BootFault("a shared directory cannot be mounted")
		}
	}
	for i := 0; i < nShareDevs; i++ {
		if d := &shareDevs[i]; d.ready {
			core.EnableDeviceIRQ(d.base)
		}
	}
}

// shareByTag finds the device whose mount tag is tag.
func shareByTag(tag string) *shareDev {
	var buf [virtio.MaxMountTagLen]byte
	for i := 0; i < nShareDevs; i++ {
		d := &shareDevs[i]
		if n := d.dev.MountTag(buf[:]); n == len(tag) && string(buf[:n]) == tag {
			return d
		}
	}
	return nil
}

// mountShare opens d's session, polling the device (interrupts are not on yet), makes s.Dir
// and mounts the share on it.
func mountShare(d *shareDev, s boot.Share) int {
	if d.fs >= 0 {
		return abi.EBUSY // two options name one device
	}
	idx, f, ok := core.RootNS.NewShare()
	if !ok {
		return abi.ENOSPC
	}
	d.fs = idx
	if errno := f.Mount(d.buffers()); errno != 0 {
		return errno
	}
	d.ready = true
	deadline := machine.Nanotime() + MountTimeout
	for {
		Poll()
		if done, errno := f.Mounted(); done {
			if errno != 0 {
				return errno
			}
			break
		}
		if machine.Nanotime() > deadline {
			klog.Log().S("shared directory: no 9P reply in ").D(MountTimeout / 1e9).S(" s").NL()
			return abi.EIO
		}
	}
	at, errno := makeDirs(s.Dir)
	if errno != 0 {
		return errno
	}
	root, errno := core.RootNS.MountShare(idx, at)
	core.RootNS.Release(&core.FSPages, at)
	if errno != 0 {
		return errno
	}
	if s.ReadOnly {
		core.RootNS.SetReadOnly(root)
	}
	if options.Kernel.Verbose {
		klog.Log().S("shared directory: ").S(s.Dir).S(" (virtio-9p at ").X(uint64(d.base)).S(", msize ").U(uint64(f.Msize())).S(")").NL()
	}
	return 0
}

// makeDirs makes directory path and those leading to it where missing, and returns it with a
// reference the caller drops.
func makeDirs(path string) (vfs.Node, int) {
	root := core.RootNS.Root()
	at := vfs.At{Root: root, Dir: root}
	b := shareDirBuf[:copy(shareDirBuf[:], path)]
	now := core.FSNow()
	for i := 1; i <= len(b); i++ {
		if i == len(b) || b[i] == '/' {
			if errno := core.RootNS.Mkdir(&core.FSPages, at, b[:i], 0o755, now); errno != 0 && errno != abi.EEXIST {
				return vfs.Node{}, errno
			}
		}
	}
	return core.RootNS.Chdir(at, b)
}

// buffers says where d's request and reply buffers are (the identity map: virtual is physical).
func (d *shareDev) buffers() p9fs.Buffers {
	req := d.mem + core.PageUp(virtio.NinePMemSize)
	return p9fs.Buffers{Req: req, Resp: req + shareBufs, Size: shareMsize}
}

// shareSend hands d's ready requests to the device.
func shareSend(d *shareDev) {
	if !d.ready {
		return
	}
	f := core.RootNS.Share(d.fs)
	buf := d.buffers()
	for {
		tag, n, ok := f.NextSend(machine.Nanotime())
		if !ok {
			return
		}
		off := uintptr(tag) * shareMsize
		tok, err := d.dev.Send(&machine.Bus, buf.Req+off, n, buf.Resp+off, shareMsize)
		if err != virtio.OK {
			// The queue holds 64 requests and a session MaxOps: only a broken device refuses.
			klog.Log().S("shared directory: virtio-9p at ").X(uint64(d.base)).S(": ").S(err.String()).NL()
			d.ready = false
			f.Fail(abi.EIO)
			shareWake(f)
			return
		}
		d.tokens[tag] = tok
	}
}

// shareHarvest hands d's finished requests to its share, wakes the threads whose calls have
// their answers and sends what follows. interrupt says it runs as the device's interrupt
// handler (it then acknowledges the interrupt); it reports whether the device raised it.
func shareHarvest(d *shareDev, interrupt bool) bool {
	if !d.ready {
		return false
	}
	f := core.RootNS.Share(d.fs)
	var done [p9.MaxOps]virtio.NineCompletion
	n, more, raised := 0, false, false
	if interrupt {
		n, more, raised = d.dev.Interrupt(&machine.Bus, done[:])
	} else {
		n, more = d.dev.Poll(&machine.Bus, done[:])
	}
	for {
		for i := 0; i < n; i++ {
			shareComplete(d, f, done[i])
		}
		if !more {
			break
		}
		n, more = d.dev.Poll(&machine.Bus, done[:])
	}
	if d.dev.Broken() {
		klog.Log().S("shared directory: virtio-9p at ").X(uint64(d.base)).S(" broke its queue").NL()
		d.ready = false
		f.Fail(abi.EIO)
	}
	shareWake(f)
	shareSend(d)
	return raised
}

// shareComplete hands one finished request to the share and traces the round trip.
func shareComplete(d *shareDev, f *p9fs.FS, c virtio.NineCompletion) {
	for tag := range d.tokens {
		if d.tokens[tag] == c.Token && c.Token != 0 {
			d.tokens[tag] = 0
			trip := f.Complete(uint16(tag), c.Len, machine.Nanotime())
			tp.ShareRPC.Emit4(uint64(d.fs), uint64(trip.Type), uint64(trip.Latency), uint64(trip.Bytes))
			if trip.Err != p9.OK {
				klog.Log().S("shared directory: malformed 9P reply to type ").U(uint64(trip.Type)).S(": ").S(trip.Err.String()).NL()
			}
			return
		}
	}
}

// shareWake makes runnable the threads whose calls on f have their answers.
func shareWake(f *p9fs.FS) {
	for w, ok := f.NextWake(); ok; w, ok = f.NextWake() {
		if w >= 0 && w < core.MaxThreads && core.Threads[w].Wait == core.WaitShare {
			core.Wake(w, false)
		}
	}
}

// Interrupt handles a device line for the shares; it reports whether one of them raised it.
func Interrupt() bool {
	raised := false
	for i := 0; i < nShareDevs; i++ {
		if shareHarvest(&shareDevs[i], true) {
			raised = true
		}
	}
	return raised
}

// Poll carries the shares' requests and replies once without interrupts, for the boot,
// when no thread can block: send what is queued, take what has finished.
func Poll() {
	for i := 0; i < nShareDevs; i++ {
		shareSend(&shareDevs[i])
		shareHarvest(&shareDevs[i], false)
	}
}

// Kick sends what the shares have queued: requests of a call that now waits, and the
// clunks a close queued.
func Kick() {
	for i := 0; i < nShareDevs; i++ {
		shareSend(&shareDevs[i])
	}
}

// System calls on shares. syscallLocked brackets each call with BeginFiles and EndFiles while
// shares are mounted; a call that got fs.EQUEUED blocks in waitShare and runs again, from the
// start, when its answer is in (completeShareWait).

// BeginFiles starts a run of the running thread's system call for the shares.
func BeginFiles(slot int32) {
	core.RootNS.Begin(slot) // with no shares, it only says whose call it is (/proc's thread-self)
}

// EndFiles ends the system call of the thread in slot, or, for a call that must wait for a
// share, blocks it (done false).
func EndFiles(f *machine.Frame, slot int32, ret uint64, done bool, retry bool) bool {
	if core.RootNS.Shares() == 0 || !done {
		return done
	}
	if ret != abi.Neg(fs.EQUEUED) {
		core.RootNS.End(slot)
		Kick()
		return true
	}
	Kick()
	if retry {
		core.Threads[slot].Wait = core.WaitShare
		core.NoteBlocked(&core.Threads[slot])
		core.Scheduler.Block(slot)
	} else {
		core.Block(f, core.WaitShare)
	}
	return false
}
