package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/trace/wire"
)

// recorder copies the data port to a recording file: the HOST frame first,
// then every byte as it arrives. It parses the frames as they pass for the
// live progress line and the closing summary, without holding them.
type recorder struct {
	file string
	f    *os.File
	w    *bufio.Writer

	frames, records, lost, crcErrors, bytes atomic.Uint64
	mu                                      sync.Mutex
	end                                     *wire.End
	host                                    *tracefile.Host
}

// newRecorder creates the file and writes the HOST frame.
func newRecorder(file string, host *tracefile.Host) (*recorder, error) {
	f, err := os.Create(file)
	if err != nil {
		return nil, err
	}
	r := &recorder{file: file, f: f, w: bufio.NewWriterSize(f, 256<<10), host: host}
	b, err := tracefile.AppendHostFrame(nil, host)
	if err == nil {
		_, err = r.w.Write(b)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

// flushWriter flushes after every write, so the file is current while the
// guest runs (a crash of the tool loses nothing that arrived).
type flushWriter struct{ w *bufio.Writer }

func (fw flushWriter) Write(p []byte) (int, error) {
	n, err := fw.w.Write(p)
	if err == nil {
		err = fw.w.Flush()
	}
	return n, err
}

// copyFrom records everything from conn until it ends. The frames are
// parsed after they are written, so a parse problem never loses bytes.
func (r *recorder) copyFrom(conn io.Reader) error {
	rd := tracefile.NewReader(io.TeeReader(conn, flushWriter{r.w}))
	for {
		ev, err := rd.Next()
		c := rd.Counts
		r.frames.Store(c.Frames)
		r.records.Store(c.Records)
		r.lost.Store(c.Lost)
		r.crcErrors.Store(c.FrameErrors)
		r.bytes.Store(uint64(c.Bytes))
		if err == io.EOF || errors.Is(err, net.ErrClosed) {
			return nil
		}
		if err != nil {
			return err
		}
		if ev.Kind == tracefile.KindEnd {
			r.mu.Lock()
			r.end = ev.Msg.(*wire.End)
			r.mu.Unlock()
		}
	}
}

// close finishes the file.
func (r *recorder) close() error {
	err := r.w.Flush()
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// summary is the closing one-line report.
func (r *recorder) summary() string {
	r.mu.Lock()
	end := "no END frame"
	if r.end != nil {
		end = "END " + r.end.Reason.String()
	}
	r.mu.Unlock()
	return fmt.Sprintf("trace %s: %d bytes, %d frames, %d records, %d lost, %d CRC errors, %s",
		r.file, r.bytes.Load(), r.frames.Load(), r.records.Load(), r.lost.Load(), r.crcErrors.Load(), end)
}

// progress shows records/s, bytes and lost so far on a terminal, rewriting
// one line of standard error twice a second. It returns the function that
// stops it and clears the line. On anything but a terminal it shows nothing.
func (r *recorder) progress(w io.Writer) (stop func()) {
	f, ok := w.(*os.File)
	if !ok || !isTerminal(f) {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		last, lastT := uint64(0), time.Now()
		for {
			select {
			case <-done:
				fmt.Fprint(w, "\r\033[K")
				return
			case now := <-t.C:
				n := r.records.Load()
				rate := float64(n-last) / now.Sub(lastT).Seconds()
				last, lastT = n, now
				fmt.Fprintf(w, "\r\033[Ktrace: %d records (%.0f/s), %.1f MB, %d lost, %d CRC errors\r",
					n, rate, float64(r.bytes.Load())/1e6, r.lost.Load(), r.crcErrors.Load())
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// logControl prints the RESP and EVENT frames of the control port on w,
// one line each, until conn ends.
func logControl(conn io.Reader, w io.Writer, prefix string) {
	rd := wire.NewReader(conn)
	for {
		f, err := rd.Next()
		var fe *wire.FrameError
		switch {
		case errors.As(err, &fe):
			fmt.Fprintf(w, "%sctl: %v\n", prefix, fe)
			continue
		case err != nil:
			return
		}
		if f.Type == wire.TypeResp || f.Type == wire.TypeEvent {
			fmt.Fprintf(w, "%sctl %s: %s\n", prefix, f.Type, f.Payload)
		}
	}
}
