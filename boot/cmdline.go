package boot

// Capacities of a Cmdline. Exceeding either is an error, never a truncation.
const (
	MaxCmdline = 4096 // bytes of command line
	MaxWords   = 128  // words, including the -- separator
)

// OptionPrefix starts a kernel option word, such as unitrace.debug=kfault.
const OptionPrefix = "unitrace."

// span locates one unquoted word in Cmdline.buf.
type span struct{ off, len uint16 }

// Cmdline is a kernel command line split into words and sorted into kernel
// options, environment variables and program arguments.
//
// Words are separated by ASCII white space (space, \t, \n, \r, \v, \f).
// Double quotes group (a"b c"d is the one word ab cd, and "" an empty
// word); inside quotes \" and \\ stand for " and \, and any other backslash
// is literal. Outside quotes a backslash is an ordinary character.
//
// If a word is exactly -- (after unquoting), the words before the first --
// are kernel options (starting with unitrace.) or environment variables
// (KEY=VALUE with a non-empty KEY), anything else there is
// ErrNotEnvOrOption, and the words after it are program arguments. Without
// --, leading unitrace. words are kernel options and every later word is a
// program argument.
//
// The strings returned by the accessors are views of the Cmdline's own
// buffer: they allocate nothing and stay valid until the next Parse, so keep
// the Cmdline in a global. Parse never keeps a reference to its input.
type Cmdline struct {
	buf    [MaxCmdline]byte // the unquoted words, back to back
	words  [MaxWords]span
	nwords int
	// Indexes into words, per class, in command-line order.
	opts, env, args    [MaxWords]uint8
	nopts, nenv, nargs int
	bad                int // index of the word an error names, or -1
}

// Parse splits and classifies line, which ends at its first NUL if it has
// one. On error every class is empty, and BadWord names the offending word
// where there is one (ErrNotEnvOrOption).
func (c *Cmdline) Parse(line []byte) Error {
	c.reset()
	for i, b := range line {
		if b == 0 {
			line = line[:i]
			break
		}
	}
	if len(line) > MaxCmdline {
		return ErrCmdlineTooLong
	}
	if err := c.split(line); err != OK {
		c.nwords = 0
		return err
	}
	if err := c.classify(); err != OK {
		c.nopts, c.nenv, c.nargs = 0, 0, 0
		return err
	}
	return OK
}

func (c *Cmdline) reset() {
	c.nwords, c.nopts, c.nenv, c.nargs = 0, 0, 0, 0
	c.bad = -1
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f'
}

// split unquotes line into c.buf and records each word. The unquoted text
// is never longer than line, so it always fits.
func (c *Cmdline) split(line []byte) Error {
	out := 0
	inWord, inQuote := false, false
	start := 0
	for i := 0; i < len(line); i++ {
		b := line[i]
		switch {
		case inQuote && b == '"':
			inQuote = false
			continue
		case inQuote && b == '\\' && i+1 < len(line) && (line[i+1] == '"' || line[i+1] == '\\'):
			i++
			b = line[i]
		case inQuote:
		case isSpace(b):
			if inWord {
				if err := c.addWord(start, out); err != OK {
					return err
				}
				inWord = false
			}
			continue
		case b == '"':
			inQuote = true
			if !inWord {
				inWord, start = true, out
			}
			continue
		}
		if !inWord {
			inWord, start = true, out
		}
		c.buf[out] = b
		out++
	}
	if inQuote {
		return ErrUnterminatedQuote
	}
	if inWord {
		return c.addWord(start, out)
	}
	return OK
}

func (c *Cmdline) addWord(start, end int) Error {
	if c.nwords == MaxWords {
		return ErrTooManyWords
	}
	c.words[c.nwords] = span{off: uint16(start), len: uint16(end - start)}
	c.nwords++
	return OK
}

func (c *Cmdline) word(i int) []byte {
	s := c.words[i]
	return c.buf[s.off : s.off+s.len]
}

func (c *Cmdline) classify() Error {
	sep := -1
	for i := 0; i < c.nwords; i++ {
		if w := c.word(i); len(w) == 2 && w[0] == '-' && w[1] == '-' {
			sep = i
			break
		}
	}
	if sep < 0 {
		i := 0
		for ; i < c.nwords && isOption(c.word(i)); i++ {
			c.opts[c.nopts] = uint8(i)
			c.nopts++
		}
		for ; i < c.nwords; i++ {
			c.args[c.nargs] = uint8(i)
			c.nargs++
		}
		return OK
	}
	for i := 0; i < sep; i++ {
		switch w := c.word(i); {
		case isOption(w):
			c.opts[c.nopts] = uint8(i)
			c.nopts++
		case isEnv(w):
			c.env[c.nenv] = uint8(i)
			c.nenv++
		default:
			c.bad = i
			return ErrNotEnvOrOption
		}
	}
	for i := sep + 1; i < c.nwords; i++ {
		c.args[c.nargs] = uint8(i)
		c.nargs++
	}
	return OK
}

func isOption(w []byte) bool { return hasPrefix(w, OptionPrefix) }

// isEnv reports whether w is KEY=VALUE with a non-empty KEY.
func isEnv(w []byte) bool {
	for i, b := range w {
		if b == '=' {
			return i > 0
		}
	}
	return false
}

func hasPrefix(w []byte, prefix string) bool {
	if len(w) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if w[i] != prefix[i] {
			return false
		}
	}
	return true
}

// NumArgs is the number of program arguments (the kernel supplies argv[0]).
func (c *Cmdline) NumArgs() int { return c.nargs }

// Arg is program argument i, or "" if out of range.
func (c *Cmdline) Arg(i int) string { return c.pick(&c.args, c.nargs, i) }

// NumEnv is the number of KEY=VALUE environment words.
func (c *Cmdline) NumEnv() int { return c.nenv }

// Env is environment word i, KEY=VALUE, or "" if out of range.
func (c *Cmdline) Env(i int) string { return c.pick(&c.env, c.nenv, i) }

// NumOptions is the number of kernel option words.
func (c *Cmdline) NumOptions() int { return c.nopts }

// Option is kernel option word i, including its unitrace. prefix, or "" if
// out of range.
func (c *Cmdline) Option(i int) string { return c.pick(&c.opts, c.nopts, i) }

// Lookup finds the kernel option unitrace.<name>: it returns the text after
// "=" for unitrace.<name>=value, or "" for a bare unitrace.<name>. When the
// option appears more than once the last one wins.
func (c *Cmdline) Lookup(name string) (value string, ok bool) {
	for k := c.nopts - 1; k >= 0; k-- {
		w := c.word(int(c.opts[k]))[len(OptionPrefix):]
		if !hasPrefix(w, name) {
			continue
		}
		switch rest := w[len(name):]; {
		case len(rest) == 0:
			return "", true
		case rest[0] == '=':
			return view(rest[1:]), true
		}
	}
	return "", false
}

// BadWord is the word the last Parse error names, or "".
func (c *Cmdline) BadWord() string {
	if c.bad < 0 || c.bad >= c.nwords {
		return ""
	}
	return view(c.word(c.bad))
}

func (c *Cmdline) pick(class *[MaxWords]uint8, n, i int) string {
	if i < 0 || i >= n {
		return ""
	}
	return view(c.word(int(class[i])))
}
