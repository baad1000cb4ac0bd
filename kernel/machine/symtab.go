package machine

import "github.com/unitrace/unitrace/symtab"

// ImageSymtab reads the running image's own pclntab: its functions, for the kernel's fault
// reports, the watchdog and the probes' checks.
func ImageSymtab() (symtab.Table, bool) {
	start, end := Pclntab()
	text, _ := TextRange()
	if end <= start {
		return symtab.Table{}, false
	}
	return symtab.New(BytesAt(start, end-start), text)
}
