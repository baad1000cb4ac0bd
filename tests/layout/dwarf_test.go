package layout

import (
	"debug/dwarf"
	"fmt"
	"strings"
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
	var errs []error
	for _, f := range fields {
		var got int64
		var err error
		if f.member == "" {
			got, err = constant(dw, f.typ)
		} else {
			got, err = memberOffset(dw, f.typ, f.member)
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

// constant returns the value of the named constant (Go's DWARF has those the program uses).
func constant(dw *dwarf.Data, name string) (int64, error) {
	r := dw.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			return 0, err
		}
		if e == nil {
			return 0, fmt.Errorf("no such constant")
		}
		if e.Tag == dwarf.TagConstant && e.Val(dwarf.AttrName) == name {
			v, ok := e.Val(dwarf.AttrConstValue).(int64)
			if !ok {
				return 0, fmt.Errorf("constant without an integer value")
			}
			return v, nil
		}
		if e.Tag != dwarf.TagCompileUnit {
			r.SkipChildren()
		}
	}
}

// memberOffset returns the byte offset of the member path in the named struct type.
func memberOffset(dw *dwarf.Data, typ, path string) (int64, error) {
	off, err := typeOffset(dw, typ)
	if err != nil {
		return 0, err
	}
	t, err := dw.Type(off)
	if err != nil {
		return 0, err
	}
	var at int64
	for _, name := range strings.Split(path, ".") {
		for {
			td, ok := t.(*dwarf.TypedefType)
			if !ok {
				break
			}
			t = td.Type
		}
		st, ok := t.(*dwarf.StructType)
		if !ok {
			return 0, fmt.Errorf("%s is not a struct", t)
		}
		found := false
		for _, m := range st.Field {
			if m.Name == name {
				at += m.ByteOffset
				t, found = m.Type, true
				break
			}
		}
		if !found {
			return 0, fmt.Errorf("no member %s in %s", name, st.StructName)
		}
	}
	return at, nil
}

// typeOffset finds the DWARF entry of the named struct type.
func typeOffset(dw *dwarf.Data, name string) (dwarf.Offset, error) {
	r := dw.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			return 0, err
		}
		if e == nil {
			return 0, fmt.Errorf("no such type")
		}
		if e.Tag == dwarf.TagStructType && e.Val(dwarf.AttrName) == name {
			return e.Offset, nil
		}
		if e.Tag != dwarf.TagCompileUnit {
			r.SkipChildren()
		}
	}
}
