package httpload

import (
	"bufio"
	"io"
	"strings"
)

// AwaitLine reads r line by line, copying each line to log if it is not nil, and reports on the
// channel true once a line contains substr, or false if r ends first; it reads on to r's end
// either way, so that the writer never blocks. It serves waiting for a guest's "serving on".
func AwaitLine(r io.Reader, substr string, log io.Writer) <-chan bool {
	seen := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(r)
		said := false
		for sc.Scan() {
			if log != nil {
				io.WriteString(log, sc.Text()+"\n")
			}
			if !said && strings.Contains(sc.Text(), substr) {
				said = true
				seen <- true
			}
		}
		if !said {
			seen <- false
		}
	}()
	return seen
}
