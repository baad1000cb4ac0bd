// Package godwarf looks up what the Go runtime does not export, in an image's own DWARF: the
// values of its constants, the sizes of its struct types and the offsets and sizes of their
// members. The image builder fills the kernel's goroutine layout from it, and tests/layout
// checks the layouts typed by hand against it.
package godwarf

import (
	"debug/dwarf"
	"errors"
	"fmt"
	"strings"
)

// Index is one pass over an image's DWARF: its constants and its named struct types.
type Index struct {
	dw      *dwarf.Data
	consts  map[string]int64
	structs map[string]dwarf.Offset
}

// ErrNotFound wraps every lookup of a name the image's DWARF does not have.
var ErrNotFound = errors.New("not in the image's DWARF")

// New indexes dw's top-level constants and struct types (Go's DWARF has the constants the
// program uses and every type it uses).
func New(dw *dwarf.Data) (*Index, error) {
	x := &Index{dw: dw, consts: map[string]int64{}, structs: map[string]dwarf.Offset{}}
	r := dw.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			return nil, fmt.Errorf("reading DWARF: %w", err)
		}
		if e == nil {
			return x, nil
		}
		name, _ := e.Val(dwarf.AttrName).(string)
		switch e.Tag {
		case dwarf.TagConstant:
			if v, ok := e.Val(dwarf.AttrConstValue).(int64); ok {
				x.consts[name] = v
			}
		case dwarf.TagStructType:
			if _, dup := x.structs[name]; !dup && name != "" {
				x.structs[name] = e.Offset
			}
		}
		if e.Tag != dwarf.TagCompileUnit {
			r.SkipChildren()
		}
	}
}

// Constant returns the value of the named constant.
func (x *Index) Constant(name string) (int64, error) {
	v, ok := x.consts[name]
	if !ok {
		return 0, fmt.Errorf("constant %s: %w", name, ErrNotFound)
	}
	return v, nil
}

// TypeSize returns the byte size of the named struct type.
func (x *Index) TypeSize(typ string) (int64, error) {
	t, err := x.structType(typ)
	if err != nil {
		return 0, err
	}
	return t.Size(), nil
}

// Member returns the byte offset and size of a member path in the named struct type (a member
// of a member is "stack.lo").
func (x *Index) Member(typ, path string) (offset, size int64, err error) {
	st, err := x.structType(typ)
	if err != nil {
		return 0, 0, err
	}
	var t dwarf.Type = st
	for _, name := range strings.Split(path, ".") {
		s, ok := underlying(t).(*dwarf.StructType)
		if !ok {
			return 0, 0, fmt.Errorf("%s.%s: %s is not a struct", typ, path, t)
		}
		found := false
		for _, m := range s.Field {
			if m.Name == name {
				offset += m.ByteOffset
				t, found = m.Type, true
				break
			}
		}
		if !found {
			return 0, 0, fmt.Errorf("member %s.%s: no %s in %s: %w", typ, path, name, s.StructName, ErrNotFound)
		}
	}
	return offset, t.Size(), nil
}

func (x *Index) structType(name string) (*dwarf.StructType, error) {
	off, ok := x.structs[name]
	if !ok {
		return nil, fmt.Errorf("type %s: %w", name, ErrNotFound)
	}
	t, err := x.dw.Type(off)
	if err != nil {
		return nil, fmt.Errorf("type %s: %w", name, err)
	}
	st, ok := underlying(t).(*dwarf.StructType)
	if !ok {
		return nil, fmt.Errorf("type %s is not a struct", name)
	}
	return st, nil
}

func underlying(t dwarf.Type) dwarf.Type {
	for {
		td, ok := t.(*dwarf.TypedefType)
		if !ok {
			return t
		}
		t = td.Type
	}
}
