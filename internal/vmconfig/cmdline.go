package vmconfig

import (
	"fmt"
	"strings"
	"unicode"
)

// GuestCommandLine builds the text QEMU passes with -append:
//
//	KEY=VALUE ... -- ARG ...
//
// The words before "--" become the program's environment (kernel options
// such as unitrace.debug=kfault are among them); the words after it become
// os.Args[1:]. The kernel splits on spaces and has no quoting, so a word
// with white space, an empty argument or a malformed KEY=VALUE is an error
// here rather than a different command line in the guest. With no words at
// all the result is empty (QEMU then gets no -append).
func GuestCommandLine(env, args []string) (string, error) {
	if len(env) == 0 && len(args) == 0 {
		return "", nil
	}
	var b strings.Builder
	for _, kv := range env {
		key, _, ok := strings.Cut(kv, "=")
		if !ok || key == "" || strings.HasPrefix(key, "-") {
			return "", fmt.Errorf("guest environment word %q is not KEY=VALUE", kv)
		}
		if err := oneWord("guest environment word", kv); err != nil {
			return "", err
		}
		b.WriteString(kv)
		b.WriteByte(' ')
	}
	b.WriteString("--")
	for _, a := range args {
		if a == "" {
			return "", fmt.Errorf("empty guest argument: the guest command line cannot carry it")
		}
		if err := oneWord("guest argument", a); err != nil {
			return "", err
		}
		b.WriteByte(' ')
		b.WriteString(a)
	}
	return b.String(), nil
}

func oneWord(what, s string) error {
	if i := strings.IndexFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f || unicode.IsSpace(r) }); i >= 0 {
		return fmt.Errorf("%s %q contains white space or a control character, which the guest command line cannot carry", what, s)
	}
	return nil
}
