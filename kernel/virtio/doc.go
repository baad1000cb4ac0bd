// Package virtio drives two virtio devices over virtio-mmio:
//
//   - a virtio-console (QEMU's virtio-serial-device) with the MULTIPORT feature, so the kernel
//     can stream trace data on the named virtserialports org.unitrace.data and org.unitrace.ctl
//     (port numbers ≥ 1: QEMU drops a virtconsole's data, port 0's, when the host reader lags,
//     while a virtserialport throttles the guest);
//   - a virtio-9p device (QEMU's virtio-9p-device), the transport of the kernel's 9P2000.L
//     client (package p9 encodes and decodes the messages; this driver only carries bytes).
//
// What it supports: both virtio-mmio interfaces (version 1 legacy, QEMU 7.2's default, with
// GuestPageSize/QueuePFN/QueueAlign; version 2 modern with VIRTIO_F_VERSION_1, FEATURES_OK and
// QueueDesc/Driver/Device plus QueueReady), split virtqueues of up to MaxQueueSize entries
// whose buffers are descriptor chains (one descriptor per console buffer, two per 9P request),
// the multiport control protocol (DEVICE_READY, DEVICE_ADD/REMOVE, PORT_READY, PORT_NAME,
// PORT_OPEN both ways, CONSOLE_PORT), console ports 0..MaxPorts-1, virtio-9p's
// VIRTIO_9P_MOUNT_TAG and its one request queue. Not supported: indirect descriptors,
// event-index suppression, packed rings, PCI.
//
// How the kernel uses the console:
//
//	addr, _, err := virtio.FindConsole(bus, virtio.MicrovmBase, virtio.MicrovmSlots) // or VirtBase/VirtSlots
//	err = dev.Init(bus, virtio.Config{Base: addr, MemPA: pa, MemSize: virtio.MemSize, DirectMap: off})
//	// on the device's interrupt (or polling before interrupts are on):
//	ev := dev.Interrupt(bus) // ev.Ports / ev.TxDone / ev.RxData: wake waiters of those ports
//	data := dev.FindPort("org.unitrace.data")
//	tok, err := dev.Send(bus, data, bufPA, n) // ErrQueueFull or ErrHostClosed: wait for events
//	... block the drain goroutine until dev.Done(data, tok) ...
//	n, err = dev.Receive(bus, dev.FindPort("org.unitrace.ctl"), cmd[:])
//
// How the kernel uses a virtio-9p device (one per -device, each with its own mount tag):
//
//	n := virtio.FindDevices(bus, virtio.MicrovmBase, virtio.MicrovmSlots, virtio.DeviceID9P, addrs[:])
//	err = nine.Init(bus, bus, virtio.NinePConfig{Base: addrs[i], MemPA: pa, MemSize: virtio.NinePMemSize, DirectMap: off})
//	tag := tagBuf[:nine.MountTag(tagBuf[:])] // tagBuf: MaxMountTagLen bytes; pick the device by tag
//	tok, err := nine.Send(bus, reqPA, reqLen, respPA, respLen) // ErrQueueFull: wait for a completion
//	... block the thread until its token completes ...
//	// on the device's interrupt (raised false: the shared line was another device's):
//	n, more, raised := nine.Interrupt(bus, done[:]) // done[k].Token finished, done[k].Len reply bytes
//	// more: Poll(bus, done[:]) again; nine.Broken(): fail every waiter
//
// bus is the kernel's Bus (32-bit MMIO accessors; the 9P Init also needs a ConfigReader, the
// same bus's byte reads for the configuration space); it is passed to each call and never stored. The
// console's memory block (MemSize bytes, page-aligned, physically contiguous) holds every ring
// and the driver's own receive and control buffers; the 9P device's block (NinePMemSize) holds
// only its ring, and each request's buffers are the caller's, physically contiguous each.
// Send's buffers stay the caller's until they complete: QEMU holds a virtserialport's buffer
// until its chardev accepts the bytes, which is how a host that does not read throttles the
// guest, and a 9P request until its reply is written.
//
// It is kernel-mode Go: the devices are pointer-free, no call allocates or panics, and nothing
// a device writes into shared memory or configuration space (used indices and entries, used
// lengths, control messages, the mount tag's length) is trusted: bad entries are skipped and
// counted in Stats, lengths are clamped, a used index that runs ahead breaks only that queue,
// and each call handles a bounded number of entries (Events.More, or more, asks for another
// Poll). The drivers do no locking; the caller serialises calls (interrupts masked, or one
// lock).
package virtio
