package kernel

import "github.com/unitrace/unitrace/boot"

// What the boot protocol told the kernel (PVH start_info on amd64, the device tree on arm64),
// in one structure: the memory map and the command line.
var (
	startInfo boot.StartInfo
	bootNanos int64 // when the kernel was ready to start the program (ns since entry)
)
