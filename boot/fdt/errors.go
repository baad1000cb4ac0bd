package fdt

// Err is a device-tree read failure. The zero value, OK, is success.
type Err uint8

const (
	OK Err = iota
	ErrTruncated
	ErrBadMagic
	ErrVersion
	ErrLayout
	ErrReservations
	ErrToken
	ErrNodeName
	ErrPropName
	ErrPropBounds
	ErrNesting
	ErrUnbalanced
	ErrPropOrder
	ErrNotFound
	ErrBadNode
	ErrPropLen
	ErrNotString
	ErrCells
	ErrIndex
	ErrNoInterruptParent
	ErrPath
	ErrNoMemory
	ErrTooManyMemory
	ErrTooManyReserved
	ErrTooManyCPUs
	ErrTooManyVirtio
	numErrors // keep last
)

// String describes the error for the console; it never allocates.
func (e Err) String() string {
	switch e {
	case OK:
		return "ok"
	case ErrTruncated:
		return "fdt: blob shorter than its header or totalsize"
	case ErrBadMagic:
		return "fdt: bad magic (want 0xd00dfeed)"
	case ErrVersion:
		return "fdt: unsupported version (want 16 or 17 compatible)"
	case ErrLayout:
		return "fdt: header block offset or size outside the blob or misaligned"
	case ErrReservations:
		return "fdt: memory reservation map unterminated or too long"
	case ErrToken:
		return "fdt: bad or truncated structure token"
	case ErrNodeName:
		return "fdt: node name without NUL"
	case ErrPropName:
		return "fdt: property name offset outside the strings block"
	case ErrPropBounds:
		return "fdt: property value runs past the structure block"
	case ErrNesting:
		return "fdt: nodes nested too deep"
	case ErrUnbalanced:
		return "fdt: unbalanced BEGIN_NODE/END_NODE or not one root"
	case ErrPropOrder:
		return "fdt: property after a subnode"
	case ErrNotFound:
		return "fdt: not found"
	case ErrBadNode:
		return "fdt: node handle is not a node of this blob"
	case ErrPropLen:
		return "fdt: property value has the wrong length"
	case ErrNotString:
		return "fdt: property value is not a NUL-terminated string"
	case ErrCells:
		return "fdt: unsupported #address-cells, #size-cells or #interrupt-cells"
	case ErrIndex:
		return "fdt: entry index past the end of the property"
	case ErrNoInterruptParent:
		return "fdt: no interrupt parent with #interrupt-cells"
	case ErrPath:
		return "fdt: path does not start with /"
	case ErrNoMemory:
		return "fdt: no memory node with a non-empty reg"
	case ErrTooManyMemory:
		return "fdt: more memory ranges than MaxMemory"
	case ErrTooManyReserved:
		return "fdt: more reserved ranges than MaxReserved"
	case ErrTooManyCPUs:
		return "fdt: more cpu nodes than MaxCPUs"
	case ErrTooManyVirtio:
		return "fdt: more virtio-mmio nodes than MaxVirtio"
	}
	return "fdt: unknown error"
}
