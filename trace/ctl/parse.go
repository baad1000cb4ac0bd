package ctl

// Field keys. A key is matched by its bytes, so no string is built.
const (
	keyID uint8 = iota
	keyCmd
	keyMatch
	keyStack
	keyRing
	keySize
	keyHz
	keyForce
	keySig
	keyTotal
	keyProbe
	keySite
	numKeys
)

var keyNames = [numKeys]string{"id", "cmd", "match", "stack", "ring", "size", "hz", "force", "sig", "total", "probe", "site"}

// keyHas maps a key to its Has* bit (0 for id and cmd, which are required).
var keyHas = [numKeys]uint16{0, 0, HasMatch, HasStack, HasRing, HasSize, HasHz, HasForce, HasSig, HasTotal, HasProbe, HasSite}

// value is one scanned JSON value.
type value struct {
	kind uint8 // kindString, kindNumber, kindBool
	str  [MaxString]byte
	n    int    // string length
	num  uint64 // number value
	b    bool
}

const (
	kindString uint8 = iota + 1
	kindNumber
	kindBool
)

// parser walks the input; pos only grows and every read checks it.
type parser struct {
	in  []byte
	pos int
}

// Parse parses one command. On error the Command is the zero value.
func Parse(in []byte) (Command, Err) {
	var c Command
	if len(in) > MaxCommand {
		return Command{}, ErrTooLong
	}
	if e := parseInto(&c, in); e != ErrNone {
		return Command{}, e
	}
	return c, ErrNone
}

func parseInto(c *Command, in []byte) Err {
	p := parser{in: in}
	p.space()
	if !p.eat('{') {
		return ErrSyntax
	}
	var seen uint16
	p.space()
	if p.eat('}') {
		return finish(c, &p, seen)
	}
	for {
		p.space()
		var key value
		if e := p.string(&key); e != ErrNone {
			return e
		}
		k := lookupKey(key.str[:key.n])
		p.space()
		if !p.eat(':') {
			return ErrSyntax
		}
		p.space()
		var v value
		if e := p.value(&v); e != ErrNone {
			return e
		}
		if k >= numKeys {
			return ErrUnknownField
		}
		if seen&(1<<k) != 0 {
			return ErrDuplicateField
		}
		seen |= 1 << k
		if e := c.set(k, &v); e != ErrNone {
			return e
		}
		p.space()
		if p.eat('}') {
			return finish(c, &p, seen)
		}
		if !p.eat(',') {
			return ErrSyntax
		}
	}
}

func finish(c *Command, p *parser, seen uint16) Err {
	p.space()
	if p.pos != len(p.in) {
		return ErrTrailing
	}
	if seen&(1<<keyID) == 0 {
		return ErrNoID
	}
	return c.validate()
}

func lookupKey(k []byte) uint8 {
	for i, name := range keyNames {
		if string(k) == name {
			return uint8(i)
		}
	}
	return numKeys
}

// set stores a field's value, checking its type and range.
func (c *Command) set(k uint8, v *value) Err {
	want := kindBool
	switch k {
	case keyID, keySize, keyHz, keySig, keyTotal, keyProbe:
		want = kindNumber
	case keyCmd, keyMatch, keyRing, keySite:
		want = kindString
	}
	if v.kind != want {
		return ErrWrongType
	}
	c.Has |= keyHas[k]
	s := v.str[:v.n]
	switch k {
	case keyID:
		if v.num > 0xffffffff {
			return ErrOutOfRange
		}
		c.ID = uint32(v.num)
	case keyCmd:
		c.Op = OpNone
		for op := OpHello; op < numOps; op++ {
			if string(s) == opNames[op] {
				c.Op = op
			}
		}
		if c.Op == OpNone {
			return ErrUnknownCmd
		}
	case keyMatch:
		c.MatchLen = uint8(copy(c.Match[:], s))
	case keyStack:
		c.Stack = v.b
	case keyRing:
		switch string(s) {
		case "stream":
			c.Ring = RingStream
		case "flight":
			c.Ring = RingFlight
		default:
			return ErrBadRing
		}
	case keySize:
		c.Size = v.num
	case keyHz:
		if v.num > MaxForcedHz {
			return ErrBadHz
		}
		c.Hz = uint32(v.num)
	case keyForce:
		c.Force = v.b
	case keySig:
		if v.num > MaxSignal {
			return ErrBadSignal
		}
		c.Sig = uint8(v.num)
	case keyTotal:
		c.Total = v.num
	case keyProbe:
		if v.num == 0 || v.num > MaxProbe {
			return ErrBadProbe
		}
		c.Probe = uint8(v.num)
	case keySite:
		n, ok := unhex(c.Site[:], s)
		if !ok {
			return ErrBadSite
		}
		c.SiteLen = uint8(n)
	}
	return ErrNone
}

// unhex decodes the lower-case hex digits of s into dst and returns the byte count; false for
// an odd count, another character, or more bytes than dst holds.
func unhex(dst, s []byte) (int, bool) {
	if len(s)%2 != 0 || len(s)/2 > len(dst) {
		return 0, false
	}
	for i := 0; i < len(s)/2; i++ {
		hi, ok1 := nibble(s[2*i])
		lo, ok2 := nibble(s[2*i+1])
		if !ok1 || !ok2 {
			return 0, false
		}
		dst[i] = hi<<4 | lo
	}
	return len(s) / 2, true
}

func nibble(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

func (p *parser) space() {
	for p.pos < len(p.in) {
		switch p.in[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) eat(b byte) bool {
	if p.pos < len(p.in) && p.in[p.pos] == b {
		p.pos++
		return true
	}
	return false
}

func (p *parser) value(v *value) Err {
	if p.pos >= len(p.in) {
		return ErrSyntax
	}
	switch b := p.in[p.pos]; {
	case b == '"':
		return p.string(v)
	case b >= '0' && b <= '9':
		return p.number(v)
	case b == '-':
		return ErrOutOfRange
	case b == 't':
		return p.literal(v, "true", true)
	case b == 'f':
		return p.literal(v, "false", false)
	case b == 'n':
		if p.literal(v, "null", false) == ErrNone {
			return ErrWrongType
		}
		return ErrSyntax
	case b == '{' || b == '[':
		return ErrNesting
	}
	return ErrSyntax
}

func (p *parser) literal(v *value, word string, b bool) Err {
	if len(p.in)-p.pos < len(word) || string(p.in[p.pos:p.pos+len(word)]) != word {
		return ErrSyntax
	}
	p.pos += len(word)
	v.kind, v.b = kindBool, b
	return ErrNone
}

// number accepts JSON's integer form without sign: 0 or [1-9][0-9]*. A
// fraction or exponent is refused rather than rounded.
func (p *parser) number(v *value) Err {
	start := p.pos
	var n uint64
	for p.pos < len(p.in) && p.in[p.pos] >= '0' && p.in[p.pos] <= '9' {
		d := uint64(p.in[p.pos] - '0')
		if n > (1<<64-1-d)/10 {
			return ErrOutOfRange
		}
		n = n*10 + d
		p.pos++
	}
	if p.pos-start > 1 && p.in[start] == '0' {
		return ErrBadNumber
	}
	if p.pos < len(p.in) {
		switch p.in[p.pos] {
		case '.', 'e', 'E', '+', '-':
			return ErrBadNumber
		}
	}
	v.kind, v.num = kindNumber, n
	return ErrNone
}

// string reads a quoted string into v.str.
func (p *parser) string(v *value) Err {
	if !p.eat('"') {
		return ErrSyntax
	}
	v.kind, v.n = kindString, 0
	for {
		if p.pos >= len(p.in) {
			return ErrSyntax
		}
		b := p.in[p.pos]
		p.pos++
		switch {
		case b == '"':
			return ErrNone
		case b == '\\':
			if p.pos >= len(p.in) {
				return ErrSyntax
			}
			b = p.in[p.pos]
			p.pos++
			if b != '"' && b != '\\' && b != '/' {
				return ErrBadString
			}
		case b < 0x20 || b > 0x7e:
			return ErrBadString
		}
		if v.n >= len(v.str) {
			return ErrStringTooLong
		}
		v.str[v.n] = b
		v.n++
	}
}
