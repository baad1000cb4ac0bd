package systab

import (
	"fmt"
	"strings"

	"github.com/unitrace/unitrace/kernel/sysnames"
)

// Arch is an architecture the kernel runs on, with its system-call names by number.
type Arch struct {
	// GOARCH is the Go name of the architecture.
	GOARCH string
	// Linux is the name of the architecture in messages ("Linux/amd64").
	Linux string
	// Name returns the name of system call nr, "" when nr is not one.
	Name func(nr uint64) string
}

// Arches lists the architectures, in the order the docs' columns show them.
var Arches = []Arch{
	{GOARCH: "amd64", Linux: "Linux/amd64", Name: sysnames.AMD64},
	{GOARCH: "arm64", Linux: "Linux/arm64", Name: sysnames.ARM64},
}

// maxNr bounds the system-call numbers searched for a name: Linux numbers its calls alike on
// every architecture from 424 on, and is in the 400s.
const maxNr = 1024

// Row is one call of Calls on one architecture: the call and its number there.
type Row struct {
	Nr uint64
	Call
}

// Rows joins Calls with arch's numbers: one row for each call arch has, in the order of Calls.
func Rows(arch Arch) ([]Row, error) {
	if err := Check(); err != nil {
		return nil, err
	}
	byName := numbers(arch)
	var rows []Row
	for _, c := range Calls {
		if nr, ok := byName[c.Name]; ok {
			rows = append(rows, Row{Nr: nr, Call: c})
		}
	}
	return rows, nil
}

// numbers maps each of arch's system-call names to its number.
func numbers(arch Arch) map[string]uint64 {
	m := map[string]uint64{}
	for nr := uint64(0); nr < maxNr; nr++ {
		if name := arch.Name(nr); name != "" {
			m[name] = nr
		}
	}
	return m
}

// Check reports the first mistake in Calls: a name twice or on no architecture, a level whose
// fields do not fit it, a note that cannot be a table cell.
func Check() error {
	var byArch []map[string]uint64
	for _, a := range Arches {
		byArch = append(byArch, numbers(a))
	}
	seen := map[string]bool{}
	for _, c := range Calls {
		if seen[c.Name] {
			return fmt.Errorf("systab: %s is listed twice", c.Name)
		}
		seen[c.Name] = true
		found := false
		for _, m := range byArch {
			if _, ok := m[c.Name]; ok {
				found = true
			}
		}
		if !found {
			return fmt.Errorf("systab: %s is no system call of %s", c.Name, archNames())
		}
		if err := checkFields(c); err != nil {
			return fmt.Errorf("systab: %s: %w", c.Name, err)
		}
	}
	return nil
}

func checkFields(c Call) error {
	switch c.Level {
	case Full, Partial:
		if c.Handler == "" || c.Errno != "" {
			return fmt.Errorf("a %s call has a handler and no errno", c.Level)
		}
		if c.Level == Partial && c.Note == "" {
			return fmt.Errorf("a partial call needs a note saying what is missing")
		}
	case Fails:
		if c.Handler != "" || !strings.HasPrefix(c.Errno, "E") || c.Note == "" {
			return fmt.Errorf("a call that fails has an errno, a reason and no handler")
		}
	default:
		return fmt.Errorf("no level")
	}
	if strings.ContainsAny(c.Note, "|\n") {
		return fmt.Errorf("note %q has a '|' or a newline", c.Note)
	}
	return nil
}

func archNames() string {
	var names []string
	for _, a := range Arches {
		names = append(names, a.GOARCH)
	}
	return strings.Join(names, " or ")
}
