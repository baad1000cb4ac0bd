// Package layout checks the layouts that the kernel and its tools share with code they do not
// own, against images the toolchain in use builds: the Go runtime's g, m and stack guard
// (arch/goabi), the slots of the kernel's entry-point table that the arch packages' assembly
// calls through, and the register ABI by which amd64's trap stub calls the kernel directly. A Go upgrade or an edit that moves one fails with the field's name.
package layout

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/arch/goabi"
)

var arches = []string{"amd64", "arm64"}

// runtimeFields are arch/goabi's values, by the runtime's names.
var runtimeFields = []field{
	{"runtime.g", "stack.lo", goabi.GStackLo},
	{"runtime.g", "stack.hi", goabi.GStackHi},
	{"runtime.g", "stackguard0", goabi.GStackGuard0},
	{"runtime.g", "stackguard1", goabi.GStackGuard1},
	{"runtime.g", "m", goabi.GM},
	{"runtime.m", "g0", goabi.MG0},
	{"runtime.m", "gsignal", goabi.MGsignal},
	{"runtime.m", "curg", goabi.MCurg},
	{"runtime.stackGuard", "", goabi.StackGuard},
}

func TestRuntimeLayout(t *testing.T) {
	for _, arch := range arches {
		t.Run(arch, func(t *testing.T) {
			im := openImage(t, build(t, arch, "examples/hello"))
			for _, err := range check(im.dw, runtimeFields) {
				t.Errorf("arch/goabi: %v", err)
			}
		})
	}
}

// TestCheckNamesTheField: an offset that is off makes the check fail with the field's name.
func TestCheckNamesTheField(t *testing.T) {
	im := openImage(t, build(t, "amd64", "examples/hello"))
	if errs := check(im.dw, runtimeFields); len(errs) > 0 {
		t.Skip("arch/goabi is off already (TestRuntimeLayout)")
	}
	for i, f := range runtimeFields {
		wrong := append([]field(nil), runtimeFields...)
		wrong[i].want += 8
		errs := check(im.dw, wrong)
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), f.String()) {
			t.Errorf("with %s off by 8: errors %v, want one naming it", f, errs)
		}
	}
	if errs := check(im.dw, []field{{"runtime.g", "nosuchfield", 0}}); len(errs) != 1 || !strings.Contains(errs[0].Error(), "runtime.g.nosuchfield") {
		t.Errorf("a missing field: errors %v, want one naming it", errs)
	}
}

// The kernel's entry-point table: package kernel publishes it (kernel/entry_ARCH.s), the arch
// packages' assembly calls through its slots (arch/ARCH/entry_ARCH.h), and the smoke images
// forge it under the kernel's name (tests/ARCHsmoke/entry_ARCH.s). Each slot is a role.
const entryTable = "github.com/unitrace/unitrace/kernel.entryPoints"

var entrySlots = []struct {
	macro string // the arch headers' name for the slot
	role  string // what the function at the slot is called, in the kernel and the smoke images
}{
	{"KERNEL_ENTRY_BOOT", "bootMain"},
	{"KERNEL_ENTRY_TRAP", "trap"},
	{"KERNEL_ENTRY_SECONDARY", "secondaryMain"},
}

// smokeRoles are the smoke images' names where they differ from the kernel's.
var smokeRoles = map[string]map[string]string{
	"amd64": {"secondaryMain": "secondary"},
}

var macroLine = regexp.MustCompile(`(?m)^#define (KERNEL_ENTRY_\w+) github·com∕unitrace∕unitrace∕kernel·entryPoints\+(\d+)\(SB\)$`)

// headerSlots reads the slot offsets arch/ARCH/entry_ARCH.h gives each macro.
func headerSlots(t *testing.T, arch string) map[string]uint64 {
	t.Helper()
	path := fmt.Sprintf("../../arch/%s/entry_%s.h", arch, arch)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	slots := map[string]uint64{}
	for _, m := range macroLine.FindAllStringSubmatch(string(b), -1) {
		off, _ := strconv.ParseUint(m[2], 10, 64)
		slots[m[1]] = off
	}
	return slots
}

func TestEntryPoints(t *testing.T) {
	for _, arch := range arches {
		slots := headerSlots(t, arch)
		for _, c := range []struct{ pkg, owner string }{
			{"examples/hello", module + "/kernel"},
			{"tests/" + arch + "smoke", "main"},
		} {
			t.Run(arch+"/"+c.pkg, func(t *testing.T) {
				im := openImage(t, build(t, arch, c.pkg))
				table, err := im.symbol(entryTable)
				if err != nil {
					t.Fatal(err)
				}
				if table.Size != uint64(8*len(entrySlots)) {
					t.Errorf("%s is %d bytes, want %d: one slot per entry point", entryTable, table.Size, 8*len(entrySlots))
				}
				words, err := im.words(table.Value, len(entrySlots))
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range entrySlots {
					off, ok := slots[s.macro]
					if !ok || off%8 != 0 || off/8 >= uint64(len(words)) {
						t.Errorf("arch/%s/entry_%s.h: %s is missing or points outside the table (offset %d)", arch, arch, s.macro, off)
						continue
					}
					role := s.role
					if c.owner == "main" && smokeRoles[arch][role] != "" {
						role = smokeRoles[arch][role]
					}
					want := c.owner + "." + role
					if got := im.funcAt(words[off/8]); got != want {
						t.Errorf("entryPoints+%d (%s) holds %s, want %s", off, s.macro, got, want)
					}
				}
			})
		}
	}
}
