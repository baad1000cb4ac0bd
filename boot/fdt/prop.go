package fdt

// Prop is the value of n's property name, as a Span of the blob;
// ErrNotFound if n has no such property.
func (b Blob) Prop(n Node, name string) (Span, Err) { return propNamed(b, n, name) }

func propNamed[S ~string | ~[]byte](b Blob, n Node, name S) (Span, Err) {
	k, t, err := b.begin(n)
	if err != OK {
		return Span{}, err
	}
	for {
		if t, err = b.token(k, t.next); err != OK {
			return Span{}, err
		}
		switch t.kind {
		case tokProp:
			if spanEqual(b, t.name, name) {
				return t.value, OK
			}
		case tokBeginNode, tokEndNode, tokEnd:
			return Span{}, ErrNotFound
		}
	}
}

// PropBytes is the value of n's property name, a view of the blob.
func (b Blob) PropBytes(n Node, name string) ([]byte, Err) {
	s, err := b.Prop(n, name)
	if err != OK {
		return nil, err
	}
	return s.Bytes(b), OK
}

// U32 is a one-cell property (<u32>); ErrPropLen if it is not 4 bytes.
func (b Blob) U32(n Node, name string) (uint32, Err) {
	v, err := b.PropBytes(n, name)
	if err != OK {
		return 0, err
	}
	if len(v) != 4 {
		return 0, ErrPropLen
	}
	x, _ := be32(v, 0)
	return x, OK
}

// U64 is a two-cell property (<u64>); ErrPropLen if it is not 8 bytes.
func (b Blob) U64(n Node, name string) (uint64, Err) {
	v, err := b.PropBytes(n, name)
	if err != OK {
		return 0, err
	}
	if len(v) != 8 {
		return 0, ErrPropLen
	}
	x, _ := be64(v, 0)
	return x, OK
}

// StringProp is a <string> property without its NUL, a view of the blob;
// ErrNotString unless the value ends in its only NUL.
func (b Blob) StringProp(n Node, name string) ([]byte, Err) { return stringPropNamed(b, n, name) }

func stringPropNamed[S ~string | ~[]byte](b Blob, n Node, name S) ([]byte, Err) {
	s, err := propNamed(b, n, name)
	if err != OK {
		return nil, err
	}
	v := s.Bytes(b)
	if len(v) == 0 || v[len(v)-1] != 0 {
		return nil, ErrNotString
	}
	for _, c := range v[:len(v)-1] {
		if c == 0 {
			return nil, ErrNotString
		}
	}
	return v[:len(v)-1], OK
}

// HasString reports whether n's <stringlist> property name (such as
// compatible) holds s as one of its NUL-terminated strings.
func (b Blob) HasString(n Node, name, s string) bool {
	v, err := b.PropBytes(n, name)
	return err == OK && listHas(v, s)
}

// listHas reports whether the <stringlist> v holds s. A last string
// without its NUL does not count.
func listHas(v []byte, s string) bool {
	for len(v) > 0 {
		end := 0
		for end < len(v) && v[end] != 0 {
			end++
		}
		if end == len(v) {
			return false
		}
		if string(v[:end]) == s {
			return true
		}
		v = v[end+1:]
	}
	return false
}

// Enabled applies the status property (spec 2.3.4): a node without one,
// or with "okay" (or the older "ok"), is enabled; "disabled", "fail" and
// anything else are not.
func (b Blob) Enabled(n Node) bool {
	v, err := b.StringProp(n, "status")
	if err == ErrNotFound {
		return true
	}
	return err == OK && (string(v) == "okay" || string(v) == "ok")
}

// Alias is the node that /aliases names name (such as "serial0").
func (b Blob) Alias(name string) (Node, Err) { return alias(b, name) }

func alias[S ~string | ~[]byte](b Blob, name S) (Node, Err) {
	a, err := b.Path("/aliases")
	if err != OK {
		return Node{}, err
	}
	p, err := stringPropNamed(b, a, name)
	if err != OK {
		return Node{}, err
	}
	return findPath(b, p)
}
