package p9

// Name names a request type as Linux's enum p9_msg_t does (P9_TWALK is "Twalk"), for tools
// that show round trips; a reply or unknown type has none (""). It allocates nothing.
func (t Type) Name() string {
	switch t {
	case Tstatfs:
		return "Tstatfs"
	case Tlopen:
		return "Tlopen"
	case Tlcreate:
		return "Tlcreate"
	case Tsymlink:
		return "Tsymlink"
	case Treadlink:
		return "Treadlink"
	case Tgetattr:
		return "Tgetattr"
	case Tsetattr:
		return "Tsetattr"
	case Treaddir:
		return "Treaddir"
	case Tfsync:
		return "Tfsync"
	case Tlink:
		return "Tlink"
	case Tmkdir:
		return "Tmkdir"
	case Trenameat:
		return "Trenameat"
	case Tunlinkat:
		return "Tunlinkat"
	case Tversion:
		return "Tversion"
	case Tattach:
		return "Tattach"
	case Tflush:
		return "Tflush"
	case Twalk:
		return "Twalk"
	case Tread:
		return "Tread"
	case Twrite:
		return "Twrite"
	case Tclunk:
		return "Tclunk"
	case Tremove:
		return "Tremove"
	}
	return ""
}
