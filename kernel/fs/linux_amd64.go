package fs

// Open flags whose values depend on the architecture (linux.go).
const (
	O_DIRECTORY = genericODirectory
	O_NOFOLLOW  = genericONofollow
)
