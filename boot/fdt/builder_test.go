package fdt

import (
	"encoding/binary"
	"strings"
)

// A tiny flattened-device-tree writer for tests: a tree of tnodes, or a
// raw token stream for malformed blobs, laid out as dtc does (header,
// reservation map, structure block, strings block).

type tnode struct {
	name  string
	props []tprop
	kids  []*tnode
}

type tprop struct {
	name string
	val  []byte
}

// node builds a node from props (tprop) and children (*tnode) in order.
func node(name string, items ...any) *tnode {
	n := &tnode{name: name}
	for _, it := range items {
		switch v := it.(type) {
		case tprop:
			n.props = append(n.props, v)
		case *tnode:
			n.kids = append(n.kids, v)
		default:
			panic("node: bad item")
		}
	}
	return n
}

func praw(name string, val []byte) tprop { return tprop{name, val} }

func pcells(name string, cs ...uint32) tprop {
	v := make([]byte, 4*len(cs))
	for i, c := range cs {
		binary.BigEndian.PutUint32(v[4*i:], c)
	}
	return tprop{name, v}
}

func pu64(name string, x uint64) tprop { return pcells(name, uint32(x>>32), uint32(x)) }

// pstr is a <stringlist> (one string is a <string>).
func pstr(name string, ss ...string) tprop {
	return tprop{name, []byte(strings.Join(ss, "\x00") + "\x00")}
}

func pempty(name string) tprop { return tprop{name, nil} }

// writer emits tokens into a structure block and interns property names.
type writer struct {
	st      []byte
	strs    []byte
	strOff  map[string]uint32
	rsv     []Region
	version uint32
	bootCPU uint32
}

func newWriter() *writer { return &writer{strOff: map[string]uint32{}, version: 17} }

func (w *writer) word(x uint32) { w.st = binary.BigEndian.AppendUint32(w.st, x) }

func (w *writer) pad() {
	for len(w.st)%4 != 0 {
		w.st = append(w.st, 0)
	}
}

func (w *writer) begin(name string) {
	w.word(tokBeginNode)
	w.st = append(w.st, name...)
	w.st = append(w.st, 0)
	w.pad()
}

func (w *writer) nameOff(name string) uint32 {
	off, ok := w.strOff[name]
	if !ok {
		off = uint32(len(w.strs))
		w.strs = append(append(w.strs, name...), 0)
		w.strOff[name] = off
	}
	return off
}

func (w *writer) prop(name string, val []byte) { w.propAt(w.nameOff(name), val) }

func (w *writer) propAt(nameOff uint32, val []byte) {
	w.word(tokProp)
	w.word(uint32(len(val)))
	w.word(nameOff)
	w.st = append(w.st, val...)
	w.pad()
}

func (w *writer) endNode() { w.word(tokEndNode) }
func (w *writer) nop()     { w.word(tokNop) }
func (w *writer) end()     { w.word(tokEnd) }

func (w *writer) tree(n *tnode) {
	w.begin(n.name)
	for _, p := range n.props {
		w.prop(p.name, p.val)
	}
	for _, k := range n.kids {
		w.tree(k)
	}
	w.endNode()
}

// blob lays the parts out; extra adds zero bytes after the strings block
// (inside totalsize), as QEMU's 1 MiB blob has.
func (w *writer) blob(extra int) []byte {
	hsize := headerSizeV17
	if w.version == 16 {
		hsize = headerSizeV16
	}
	b := make([]byte, (hsize+7)&^7)
	rsvOff := len(b)
	for _, r := range w.rsv {
		b = binary.BigEndian.AppendUint64(b, r.Addr)
		b = binary.BigEndian.AppendUint64(b, r.Size)
	}
	b = append(b, make([]byte, 16)...)
	stOff := len(b)
	b = append(b, w.st...)
	strOff := len(b)
	b = append(b, w.strs...)
	b = append(b, make([]byte, extra)...)
	be := binary.BigEndian
	be.PutUint32(b[hMagic:], Magic)
	be.PutUint32(b[hTotalSize:], uint32(len(b)))
	be.PutUint32(b[hOffStruct:], uint32(stOff))
	be.PutUint32(b[hOffStrings:], uint32(strOff))
	be.PutUint32(b[hOffRsvmap:], uint32(rsvOff))
	be.PutUint32(b[hVersion:], w.version)
	be.PutUint32(b[hLastCompVersion:], 16)
	be.PutUint32(b[hBootCPU:], w.bootCPU)
	be.PutUint32(b[hSizeStrings:], uint32(len(w.strs)))
	if hsize == headerSizeV17 {
		be.PutUint32(b[hSizeStruct:], uint32(len(w.st)))
	}
	return b
}

// build is the blob of a whole tree.
func build(root *tnode, rsv ...Region) []byte {
	w := newWriter()
	w.rsv = rsv
	w.nop() // dtc never writes one here, but the grammar allows it
	w.tree(root)
	w.end()
	return w.blob(0)
}

func put32(b []byte, off int, x uint32) []byte {
	c := append([]byte(nil), b...)
	binary.BigEndian.PutUint32(c[off:], x)
	return c
}

func get32(b []byte, off int) uint32 { return binary.BigEndian.Uint32(b[off:]) }
