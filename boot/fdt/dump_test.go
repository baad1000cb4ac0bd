package fdt

import (
	"fmt"
	"strings"
	"testing"
)

// dump prints the tree as text, for failure messages and for looking at a
// blob with go test -run TestDump -v -dtb FILE.
func dump(b Blob) string {
	var sb strings.Builder
	w, err := b.newWalker()
	if err != OK {
		return err.String()
	}
	for !w.done {
		t, err := w.step(b)
		if err != OK {
			fmt.Fprintf(&sb, "error %v at %#x\n", err, t.at)
			break
		}
		indent := strings.Repeat("  ", w.depth)
		switch t.kind {
		case tokBeginNode:
			fmt.Fprintf(&sb, "%s%s {\n", indent[2:], t.name.Bytes(b))
		case tokEndNode:
			fmt.Fprintf(&sb, "%s}\n", indent)
		case tokProp:
			fmt.Fprintf(&sb, "%s%s = %q\n", indent, t.name.Bytes(b), t.value.Bytes(b))
		}
	}
	return sb.String()
}

func TestDump(t *testing.T) {
	if *dtbFlag == "" {
		t.Skip("no -dtb")
	}
	t.Log("\n" + dump(readFile(t, *dtbFlag)))
}
