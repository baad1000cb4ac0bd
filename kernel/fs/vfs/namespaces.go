package vfs

// NamespaceType reports whether n is a namespace's file (where a /proc/<pid>/ns link leads),
// and its kind's CLONE_NEW* flag.
func (ns *Namespace) NamespaceType(n Node) (clone uint32, ok bool) {
	if ns.kindOf(n) != kindProc {
		return 0, false
	}
	return ns.proc.NamespaceType(n.Ino)
}
