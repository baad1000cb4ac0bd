// Package virtio drives a virtio-console (QEMU's virtio-serial-device) over virtio-mmio, with
// the MULTIPORT feature, so the kernel can stream trace data on the named virtserialports
// org.unitrace.data and org.unitrace.ctl (port numbers ≥ 1: QEMU drops a virtconsole's data,
// port 0's, when the host reader lags, while a virtserialport throttles the guest).
//
// What it supports: both virtio-mmio interfaces (version 1 legacy, QEMU 7.2's default, with
// GuestPageSize/QueuePFN/QueueAlign; version 2 modern with VIRTIO_F_VERSION_1, FEATURES_OK and
// QueueDesc/Driver/Device plus QueueReady), split virtqueues of up to MaxQueueSize entries with
// one descriptor per buffer, the multiport control protocol (DEVICE_READY, DEVICE_ADD/REMOVE,
// PORT_READY, PORT_NAME, PORT_OPEN both ways, CONSOLE_PORT), ports 0..MaxPorts-1. Not
// supported: indirect descriptors, event-index suppression, packed rings, PCI.
//
// How the kernel uses it:
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
// bus is the kernel's Bus (32-bit MMIO accessors); it is passed to each call and never stored.
// The memory block (MemSize bytes, page-aligned, physically contiguous) holds every ring and
// the driver's own receive and control buffers. Send's buffer stays the caller's until Done:
// QEMU holds a virtserialport's buffer until its chardev accepts the bytes, which is how a host
// that does not read throttles the guest.
//
// It is kernel-mode Go: the Device is pointer-free, no call allocates or panics, and nothing
// a device writes into shared memory (used indices and entries, used lengths, control messages)
// is trusted: bad entries are skipped and counted in Stats, lengths are clamped, a used index
// that runs ahead breaks only that queue, and each Poll handles at most one ring's worth of
// entries per queue (Events.More asks for another). The driver does no locking; the caller
// serialises calls (interrupts masked, or one lock).
package virtio
