package probes

import (
	"debug/dwarf"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/unitrace/unitrace/trace/record"
)

// A function's parameters, from the image's DWARF, with the registers Go's ABIInternal gives
// each (the Go repository's src/cmd/compile/abi-internal.md, "Function call argument and result
// passing"): arguments and results are assigned separately, each from the first integer and
// float register; a value is split into its integer, float, string, slice, interface, struct
// and one-element array parts in order, and if they do not all fit in the registers left, the
// whole value goes on the stack and the registers stay for the next.

// Param is one argument or result.
type Param struct {
	Name    string
	Result  bool
	Type    dwarf.Type
	Ints    []int // the integer registers that hold it, in order (indexes into the ABI's list)
	Floats  []int // the float registers
	OnStack bool  // passed in memory: the record does not have it
}

// Params returns the parameters of the function called name, arguments first, or nil when the
// image's DWARF does not describe it.
func (im *Image) Params(name string, nint, nfloat int) []Param {
	if im.dwarf == nil {
		return nil
	}
	if im.params == nil {
		im.params = map[string][]Param{}
	}
	if ps, ok := im.params[name]; ok {
		return ps
	}
	ps := im.readParams(name, nint, nfloat)
	im.params[name] = ps
	return ps
}

func (im *Image) readParams(name string, nint, nfloat int) []Param {
	r := im.dwarf.Reader()
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			return nil
		}
		if e.Tag != dwarf.TagSubprogram {
			if e.Tag != dwarf.TagCompileUnit {
				r.SkipChildren()
			}
			continue
		}
		if n, _ := e.Val(dwarf.AttrName).(string); n != name || !e.Children {
			r.SkipChildren()
			continue
		}
		var ps []Param
		for {
			c, err := r.Next()
			if err != nil || c == nil || c.Tag == 0 {
				break
			}
			if c.Tag != dwarf.TagFormalParameter {
				if c.Children {
					r.SkipChildren()
				}
				continue
			}
			p := Param{}
			p.Name, _ = c.Val(dwarf.AttrName).(string)
			p.Result, _ = c.Val(dwarf.AttrVarParam).(bool)
			if off, ok := c.Val(dwarf.AttrType).(dwarf.Offset); ok {
				p.Type, _ = im.dwarf.Type(off)
			}
			ps = append(ps, p)
		}
		assignRegisters(ps, false, nint, nfloat)
		assignRegisters(ps, true, nint, nfloat)
		return ps
	}
}

// assignRegisters gives the arguments (results: the results) of ps their registers.
func assignRegisters(ps []Param, results bool, nint, nfloat int) {
	ni, nf := 0, 0
	for i := range ps {
		p := &ps[i]
		if p.Result != results {
			continue
		}
		var a regAlloc
		if p.Type == nil || !a.value(p.Type) || ni+a.ints > nint || nf+a.floats > nfloat {
			p.OnStack = true
			continue
		}
		for k := 0; k < a.ints; k++ {
			p.Ints = append(p.Ints, ni+k)
		}
		for k := 0; k < a.floats; k++ {
			p.Floats = append(p.Floats, nf+k)
		}
		ni, nf = ni+a.ints, nf+a.floats
	}
}

// regAlloc counts the registers one value takes.
type regAlloc struct{ ints, floats int }

// value adds t's registers; false when t goes on the stack whatever the registers left.
func (a *regAlloc) value(t dwarf.Type) bool {
	switch t := underlying(t).(type) {
	case *dwarf.IntType, *dwarf.UintType, *dwarf.BoolType, *dwarf.CharType, *dwarf.UcharType, *dwarf.PtrType,
		*dwarf.FuncType, *dwarf.AddrType, *dwarf.UnspecifiedType:
		if t.Size() == 0 {
			return true
		}
		a.ints++
	case *dwarf.FloatType:
		a.floats++
	case *dwarf.ComplexType:
		a.floats += 2
	case *dwarf.StructType:
		for _, f := range t.Field {
			if !a.value(f.Type) {
				return false
			}
		}
	case *dwarf.ArrayType:
		switch t.Count {
		case 0:
		case 1:
			return a.value(t.Type)
		default:
			return false
		}
	default:
		return false
	}
	return true
}

// underlying strips typedefs (Go's named types).
func underlying(t dwarf.Type) dwarf.Type {
	for i := 0; i < 16; i++ {
		td, ok := t.(*dwarf.TypedefType)
		if !ok {
			return t
		}
		t = td.Type
	}
	return t
}

// maxStringShown bounds the bytes of a string argument shown from the image.
const maxStringShown = 64

// FormatValue renders p's value from the registers of a hit: a number, a bool, a pointer, a
// string (its bytes when the image's data holds them, else its address and length), or the raw
// words of anything else. "?" for a value passed on the stack.
func (im *Image) FormatValue(p Param, ints, floats []uint64, copied []record.ProbeString) string {
	if p.OnStack || p.Type == nil {
		return "?"
	}
	iv := make([]uint64, 0, len(p.Ints))
	for _, r := range p.Ints {
		if r >= len(ints) {
			return "?"
		}
		iv = append(iv, ints[r])
	}
	fv := make([]uint64, 0, len(p.Floats))
	for _, r := range p.Floats {
		if r >= len(floats) {
			return "?"
		}
		fv = append(fv, floats[r])
	}
	t := underlying(p.Type)
	switch t := t.(type) {
	case *dwarf.IntType:
		if len(iv) == 1 {
			sh := 64 - 8*uint(t.Size())
			return strconv.FormatInt(int64(iv[0]<<sh)>>sh, 10)
		}
	case *dwarf.UintType, *dwarf.UcharType:
		if len(iv) == 1 {
			return strconv.FormatUint(iv[0]&sizeMask(t.Size()), 10)
		}
	case *dwarf.BoolType:
		if len(iv) == 1 {
			return strconv.FormatBool(iv[0]&0xff != 0)
		}
	case *dwarf.PtrType, *dwarf.FuncType, *dwarf.UnspecifiedType:
		if len(iv) == 1 {
			return fmt.Sprintf("%#x", iv[0])
		}
	case *dwarf.FloatType:
		if len(fv) == 1 {
			if t.Size() == 4 {
				return strconv.FormatFloat(float64(math.Float32frombits(uint32(fv[0]))), 'g', -1, 32)
			}
			return strconv.FormatFloat(math.Float64frombits(fv[0]), 'g', -1, 64)
		}
	case *dwarf.StructType:
		if t.StructName == "string" && len(iv) == 2 {
			for _, c := range copied {
				if int(c.PtrReg) == p.Ints[0] {
					return formatCopied(c, iv[1])
				}
			}
			return im.formatString(iv[0], iv[1])
		}
	}
	words := make([]string, 0, len(iv)+len(fv))
	for _, w := range append(iv, fv...) {
		words = append(words, fmt.Sprintf("%#x", w))
	}
	return "{" + strings.Join(words, ", ") + "}"
}

// isString reports whether p is a string passed in two integer registers.
func isString(p Param) bool {
	t, ok := underlying(p.Type).(*dwarf.StructType)
	return ok && t.StructName == "string" && !p.OnStack && len(p.Ints) == 2
}

// formatString shows a string from its pointer and length: quoted when the image holds its
// bytes (a literal), else as its address and length.
func (im *Image) formatString(ptr, n uint64) string {
	if n == 0 {
		return `""`
	}
	shown := min(n, maxStringShown)
	if b, ok := im.Static(ptr, shown); ok {
		s := strconv.Quote(string(b))
		if shown < n {
			s += fmt.Sprintf("...(%d bytes)", n)
		}
		return s
	}
	return fmt.Sprintf("string(%#x, %d)", ptr, n)
}

// formatCopied shows a string the hit copied, n bytes long.
func formatCopied(c record.ProbeString, n uint64) string {
	s := strconv.Quote(string(c.Bytes))
	switch {
	case c.Unreadable:
		s += fmt.Sprintf("...(unreadable after %d of %d bytes)", len(c.Bytes), n)
	case c.Trunc:
		s += fmt.Sprintf("...(%d bytes)", n)
	}
	return s
}

func sizeMask(size int64) uint64 {
	if size >= 8 || size <= 0 {
		return math.MaxUint64
	}
	return 1<<(8*uint(size)) - 1
}
