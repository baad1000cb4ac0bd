package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// The image's /proc, as the Go runtime, os and programs that read it find it. Each check prints
// what it found in words that do not depend on the run (no descriptor numbers, sizes or times).

// procSelf: os.Executable (readlink /proc/self/exe), /proc/self, the arguments and environment.
func procSelf(dir string) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	_, exeErr := os.Stat(exe)
	self, err := os.Readlink("/proc/self")
	if err != nil {
		return "", err
	}
	if self != strconv.Itoa(os.Getpid()) {
		return "", fmt.Errorf("/proc/self -> %s, getpid %d", self, os.Getpid())
	}
	cmdline, err := os.ReadFile("/proc/self/cmdline")
	if err != nil {
		return "", err
	}
	args := strings.Split(strings.TrimSuffix(string(cmdline), "\x00"), "\x00")
	environ, err := os.ReadFile("/proc/self/environ")
	if err != nil {
		return "", err
	}
	env := strings.Split(strings.TrimSuffix(string(environ), "\x00"), "\x00")
	if len(environ) == 0 {
		env = nil
	}
	return fmt.Sprintf("executable %s (%s there), /proc/self -> getpid, cmdline %q = os.Args %v, environ = os.Environ %v",
		exe, errnoName(exeErr), args, slices.Equal(args, os.Args), slices.Equal(env, os.Environ())), nil
}

// procFD: /proc/self/fd lists the open descriptors, each a link to its file's path or to what
// Linux names a pipe, and opening one opens the file (or the pipe) again.
func procFD(dir string) (string, error) {
	p := filepath.Join(dir, "proc-fd")
	f, err := os.Create(p)
	if err != nil {
		return "", err
	}
	defer os.Remove(p)
	defer f.Close()
	if _, err := f.WriteString("hello"); err != nil {
		return "", err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return "", err
	}
	defer r.Close()
	defer w.Close()
	link := func(fd uintptr) string { return "/proc/self/fd/" + strconv.Itoa(int(fd)) }
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return "", err
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	listed := true
	for _, fd := range []uintptr{0, 1, 2, f.Fd(), r.Fd(), w.Fd()} {
		listed = listed && slices.Contains(names, strconv.Itoa(int(fd)))
	}
	st, err := os.Stat("/proc/self/fd")
	if err != nil {
		return "", err
	}
	console, err := os.Readlink("/proc/self/fd/1")
	if err != nil {
		return "", err
	}
	fileLink, err := os.Readlink(link(f.Fd()))
	if err != nil {
		return "", err
	}
	pipeLink, err := os.Readlink(link(r.Fd()))
	if err != nil {
		return "", err
	}
	var pst syscall.Stat_t
	if err := syscall.Fstat(int(r.Fd()), &pst); err != nil {
		return "", err
	}
	again, err := os.ReadFile(link(f.Fd()))
	if err != nil {
		return "", err
	}
	w2, err := os.OpenFile(link(r.Fd()), os.O_WRONLY, 0) // the pipe's write end, as a FIFO opens
	if err != nil {
		return "", err
	}
	_, err = w2.WriteString("x")
	w2.Close()
	if err != nil {
		return "", err
	}
	got := make([]byte, 4)
	n, err := r.Read(got)
	if err != nil {
		return "", err
	}
	// The listing's own descriptor was open while it listed, not when the size was read.
	return fmt.Sprintf("lists 0-2, the file and the pipe %v, size = entries less the listing's own %v, 1 -> %s, file -> its path %v, "+
		"pipe -> pipe:[fstat's inode] %v, reopened file reads %q, reopened pipe carries %q",
		listed, st.Size() == int64(len(entries)-1), console, fileLink == p, pipeLink == fmt.Sprintf("pipe:[%d]", pst.Ino),
		again, got[:n]), nil
}

// procMachine: meminfo, cpuinfo, uptime, status and pipe-max-size, read as programs read them.
func procMachine(dir string) (string, error) {
	mem, err := keyed("/proc/meminfo")
	if err != nil {
		return "", err
	}
	total, free, avail := kB(mem["MemTotal"]), kB(mem["MemFree"]), kB(mem["MemAvailable"])
	cpuinfo, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "", err
	}
	processors := bytes.Count(cpuinfo, []byte("processor\t: "))
	uptime, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return "", err
	}
	var up, idle float64
	if _, err := fmt.Sscanf(string(uptime), "%f %f\n", &up, &idle); err != nil {
		return "", fmt.Errorf("uptime %q: %v", uptime, err)
	}
	status, err := keyed("/proc/self/status")
	if err != nil {
		return "", err
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return "", err
	}
	threads, _ := strconv.Atoi(status["Threads"])
	pipeMax, err := os.ReadFile("/proc/sys/fs/pipe-max-size")
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("meminfo 0 < MemFree <= MemAvailable <= MemTotal %v, cpuinfo processors = NumCPU %v, uptime > 0 %v, "+
		"status Name %s Pid %s Threads > 0 %v VmRSS > RssFile > 0 %v, task/ lists threads %v, pipe-max-size %q",
		0 < free && free <= avail && avail <= total, processors == runtime.NumCPU(), up > 0,
		status["Name"], status["Pid"], threads > 0, kB(status["VmRSS"]) > kB(status["RssFile"]) && kB(status["RssFile"]) > 0,
		len(tasks) > 0, pipeMax), nil
}

// keyed reads a file of "Key: value" lines.
func keyed(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	s := bufio.NewScanner(bytes.NewReader(data))
	for s.Scan() {
		if k, v, ok := strings.Cut(s.Text(), ":"); ok {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m, nil
}

// kB parses meminfo's "1234 kB".
func kB(v string) int64 {
	n, _ := strconv.ParseInt(strings.TrimSuffix(v, " kB"), 10, 64)
	return n
}

// procErrors: what Linux answers root (the program's user) for what /proc refuses.
func procErrors(dir string) (string, error) {
	f, err := os.OpenFile("/proc/meminfo", os.O_WRONLY, 0) // root may open it for writing
	if err != nil {
		return "", err
	}
	_, writeErr := f.Write([]byte("1"))
	f.Close()
	_, sysctlErr := os.OpenFile("/proc/sys/fs/pipe-max-size", os.O_WRONLY, 0)
	_, readlinkErr := os.Readlink("/proc/self/cmdline")
	_, fdErr := os.Stat("/proc/self/fd/999")
	var pathErr *os.PathError
	if !errors.As(writeErr, &pathErr) {
		return "", fmt.Errorf("write meminfo: %v", writeErr)
	}
	return fmt.Sprintf("write meminfo %s, write pipe-max-size %s, mkdir %s, remove %s, readlink cmdline %s, fd/999 %s",
		errnoName(writeErr), errnoName(sysctlErr), errnoName(os.Mkdir("/proc/new", 0o755)),
		errnoName(os.Remove("/proc/meminfo")), errnoName(readlinkErr), errnoName(fdErr)), nil
}
