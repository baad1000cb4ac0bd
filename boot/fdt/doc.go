// Package fdt reads a flattened device tree (the DTB that QEMU's arm64
// "virt" machine leaves at the start of RAM): the header and memory
// reservations, nodes by path, name, compatible string or phandle,
// properties, reg entries, interrupts, and a summary of a QEMU virt machine
// (Machine) for the arm64 boot path.
//
// It is kernel-mode Go, run before the Go runtime starts. u-root's pkg/dt
// would decode the same blob, but it builds maps, slices and strings on the
// heap while it reads, and there is no heap yet; so this is an own parser.
// Its types hold only integers and fixed arrays (a Node is an offset, a
// property value is a Span of the blob), nothing allocates, and no input
// makes it panic or loop: every offset and length is checked against the
// blob, every walk advances by at least one token and stops at the end of
// the structure block, and nesting is capped at MaxDepth. Failures are Err
// codes that the console can print.
//
// The blob is passed to every call as a Blob (a byte slice, in the kernel a
// view of guest memory sized by TotalSize), so nothing in this package
// stores a pointer. Call Check once: it validates the whole blob. The other
// calls are safe on any input too, but on a blob that Check rejects they may
// fail part way.
//
// In the arm64 kernel, with the DTB at the start of RAM:
//
//	size, err := fdt.TotalSize(view(0x40000000, 8)) // magic and totalsize
//	blob := fdt.Blob(view(0x40000000, min(size, capacity)))
//	err = blob.ReadMachine(&machine) // machine: a global fdt.Machine
//	args := machine.Bootargs.Bytes(blob)
//
// Spans and Nodes are offsets into the blob, so the RAM it occupies must stay
// untouched while they are used (or the bytes copied out first).
//
// Format: Devicetree Specification v0.4, chapter 5 (flattened format) and
// chapter 2 (standard properties: #address-cells, #size-cells, reg,
// interrupts, interrupt-parent, phandle, status).
package fdt
