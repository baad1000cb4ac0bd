package fs

// Open flags whose values depend on the architecture (linux.go).
const (
	O_DIRECTORY = arm64ODirectory
	O_NOFOLLOW  = arm64ONofollow
)
