// Package boot reads what the boot loader hands the kernel: the PVH
// start_info on amd64 (memory map, command line, ACPI RSDP) and the kernel
// command line, split into kernel options, environment variables and program
// arguments.
//
// It is kernel-mode Go, run before the Go runtime starts: its types hold only
// integers and fixed arrays, nothing allocates, and no input makes it panic;
// failures are Error codes that the console can print. The boot entry
// assembly of each architecture (added separately) also lives here.
package boot

// Error is a boot-information parse failure. The zero value, OK, is success.
type Error uint8

const (
	OK Error = iota
	ErrStartInfoRead
	ErrBadMagic
	ErrTooManyModules
	ErrCmdlineRead
	ErrCmdlineUnterminated
	ErrNoMemoryMap
	ErrMemoryMapCount
	ErrMemoryMapRead
	ErrMemoryRangeWraps
	ErrMemoryMapFull
	ErrCmdlineTooLong
	ErrTooManyWords
	ErrUnterminatedQuote
	ErrNotEnvOrOption
	ErrNoRAM
	numErrors // keep last
)

// String describes the error for the console; it never allocates.
func (e Error) String() string {
	switch e {
	case OK:
		return "ok"
	case ErrStartInfoRead:
		return "pvh: cannot read start_info"
	case ErrBadMagic:
		return "pvh: bad start_info magic"
	case ErrTooManyModules:
		return "pvh: absurd module count"
	case ErrCmdlineRead:
		return "pvh: cannot read the command line"
	case ErrCmdlineUnterminated:
		return "pvh: command line has no NUL within 4096 bytes"
	case ErrNoMemoryMap:
		return "pvh: no memory map (start_info version 0 or null memmap)"
	case ErrMemoryMapCount:
		return "pvh: absurd memory map entry count"
	case ErrMemoryMapRead:
		return "pvh: cannot read the memory map"
	case ErrMemoryRangeWraps:
		return "memory map: range wraps past the top of the address space"
	case ErrMemoryMapFull:
		return "memory map: too many ranges"
	case ErrCmdlineTooLong:
		return "cmdline: longer than 4096 bytes"
	case ErrTooManyWords:
		return "cmdline: more than 128 words"
	case ErrUnterminatedQuote:
		return "cmdline: unterminated double quote"
	case ErrNotEnvOrOption:
		return "cmdline: word before -- is neither KEY=VALUE nor unitrace.*"
	case ErrNoRAM:
		return "pvh: memory map has no RAM"
	}
	return "boot: unknown error"
}
