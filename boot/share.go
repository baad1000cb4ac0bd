package boot

// ShareOption is the kernel option that names a shared directory: one word per share,
// unitrace.share=TAG:GUESTDIR or unitrace.share=TAG:GUESTDIR:ro, where TAG is the mount tag of
// the share's virtio-9p device and GUESTDIR the absolute directory it is mounted on (read-only
// with :ro). The launcher writes it (internal/vmconfig); GUESTDIR holds no colon.
const ShareOption = OptionPrefix + "share="

// Share is one parsed unitrace.share option. Tag and Dir are slices of the option's word.
type Share struct {
	Tag, Dir string
	ReadOnly bool
}

// ParseShare reads one unitrace.share option word (the whole word, prefix included). It
// refuses a word without the prefix, an empty tag, a directory that is not absolute or is "/",
// a directory holding a colon, and a suffix other than ":ro". It allocates nothing.
func ParseShare(word string) (Share, bool) {
	if len(word) < len(ShareOption) || word[:len(ShareOption)] != ShareOption {
		return Share{}, false
	}
	v := word[len(ShareOption):]
	colon := -1
	for i := 0; i < len(v); i++ {
		if v[i] == ':' {
			colon = i
			break
		}
	}
	if colon <= 0 {
		return Share{}, false
	}
	s := Share{Tag: v[:colon], Dir: v[colon+1:]}
	if n := len(s.Dir); n >= 3 && s.Dir[n-3:] == ":ro" {
		s.Dir, s.ReadOnly = s.Dir[:n-3], true
	}
	if len(s.Dir) < 2 || s.Dir[0] != '/' {
		return Share{}, false
	}
	for i := 0; i < len(s.Dir); i++ {
		if s.Dir[i] == ':' {
			return Share{}, false
		}
	}
	return s, true
}
