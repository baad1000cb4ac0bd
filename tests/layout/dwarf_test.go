package layout

import (
	"debug/dwarf"
	"fmt"

	"github.com/unitrace/unitrace/internal/godwarf"
)

// field is one offset someone else owns and we typed by hand: a struct's member path (a
// member of a member is "stack.lo"), or a constant when member is empty; want is our value.
type field struct {
	typ, member string
	want        int64
}

func (f field) String() string {
	if f.member == "" {
		return f.typ
	}
	return f.typ + "." + f.member
}

// check compares every field with the image's DWARF and returns one error per mismatch or
// missing field, each naming it.
func check(dw *dwarf.Data, fields []field) []error {
	x, err := godwarf.New(dw)
	if err != nil {
		return []error{err}
	}
	var errs []error
	for _, f := range fields {
		var got int64
		var err error
		if f.member == "" {
			got, err = x.Constant(f.typ)
		} else {
			got, _, err = x.Member(f.typ, f.member)
		}
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: %v", f, err))
		case got != f.want:
			errs = append(errs, fmt.Errorf("%s is %d in the toolchain's image, but we have %d", f, got, f.want))
		}
	}
	return errs
}
