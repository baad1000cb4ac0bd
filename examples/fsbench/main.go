// Command fsbench measures file system throughput and metadata costs in a directory: it runs as
// a unitrace image (on the in-memory file system, or on a shared host directory) and as an
// ordinary Linux program, so tests/vm's BenchmarkFiles can compare them in one run.
//
//	fsbench -dir DIR [-mb N] [-chunk BYTES] [-files N]
//
// Output, one line each:
//
//	write_MBps N    writing an N MiB file in chunk-sized writes, then closing it
//	read_MBps N     reading it back in chunk-sized reads
//	create_us N     creating, writing 100 bytes to and closing a small file, per file
//	stat_us N       stat of one of them, per call
//	remove_us N     removing one, per file
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	_ "github.com/unitrace/unitrace/kernel"
)

func main() {
	dir := flag.String("dir", os.TempDir(), "directory to work in")
	mb := flag.Int("mb", 16, "size of the large file in MiB")
	chunk := flag.Int("chunk", 64<<10, "bytes per read and write")
	files := flag.Int("files", 200, "small files")
	flag.Parse()
	if err := run(*dir, *mb, *chunk, *files); err != nil {
		fmt.Fprintln(os.Stderr, "fsbench:", err)
		os.Exit(1)
	}
}

func run(dir string, mb, chunk, files int) error {
	work, err := os.MkdirTemp(dir, "fsbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	size := int64(mb) << 20
	buf := make([]byte, chunk)
	for i := range buf {
		buf[i] = byte(i)
	}
	big := filepath.Join(work, "big")
	start := time.Now()
	f, err := os.Create(big)
	if err != nil {
		return err
	}
	for done := int64(0); done < size; done += int64(chunk) {
		if _, err := f.Write(buf); err != nil {
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Printf("write_MBps %.1f\n", float64(size)/(1<<20)/time.Since(start).Seconds())

	start = time.Now()
	f, err = os.Open(big)
	if err != nil {
		return err
	}
	var got int64
	for {
		n, err := f.Read(buf)
		got += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	f.Close()
	if got != size {
		return fmt.Errorf("read %d bytes back, wrote %d", got, size)
	}
	fmt.Printf("read_MBps %.1f\n", float64(size)/(1<<20)/time.Since(start).Seconds())

	names := make([]string, files)
	start = time.Now()
	for i := range names {
		names[i] = filepath.Join(work, fmt.Sprintf("f%04d", i))
		if err := os.WriteFile(names[i], buf[:100], 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("create_us %.1f\n", perOp(start, files))
	start = time.Now()
	for _, n := range names {
		if _, err := os.Stat(n); err != nil {
			return err
		}
	}
	fmt.Printf("stat_us %.1f\n", perOp(start, files))
	start = time.Now()
	for _, n := range names {
		if err := os.Remove(n); err != nil {
			return err
		}
	}
	fmt.Printf("remove_us %.1f\n", perOp(start, files))
	return nil
}

func perOp(start time.Time, n int) float64 {
	return float64(time.Since(start).Microseconds()) / float64(n)
}
