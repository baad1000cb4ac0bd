// Package goroutines reads the Go runtime's goroutines from outside the runtime: the kernel's
// off-CPU sweep uses it to see every goroutine's state, wait reason and where it will resume,
// without stopping the program and without a line of it changed.
//
// The runtime exports none of this. What the reader needs of the runtime's private layout (the
// addresses of runtime.allglen and runtime.allgptr, the offsets of g's and m's fields, the
// values of the goroutine states) is a Layout that the image builder reads out of each image's
// own DWARF and symbol table after linking and writes into the kernel's layout slot (Slot). A
// field it cannot find, or one of a size the reader does not expect, leaves the slot refused
// with the reason, and the kernel refuses to sweep: the layout is never guessed.
//
// Every load is checked as a frame walk's are: the runtime keeps running while the reader
// looks, so a goroutine may change state, move its stack or exit mid-read, and the list may
// grow into a new array. The reader validates each word before trusting it, reads a
// goroutine's identity again after its stack was walked (Recheck), and reports what it skipped
// by cause; a bad pointer is skipped, never followed into a fault.
package goroutines
