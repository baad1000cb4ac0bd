package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

func devices(dir string) (string, error) {
	null, err := os.OpenFile("/dev/null", os.O_RDWR, 0)
	if err != nil {
		return "", err
	}
	defer null.Close()
	n, err := null.Write(make([]byte, 1000))
	if err != nil {
		return "", err
	}
	k, rerr := null.Read(make([]byte, 10))
	z, err := os.Open("/dev/zero")
	if err != nil {
		return "", err
	}
	defer z.Close()
	buf := bytes.Repeat([]byte{1}, 4096)
	if _, err := io.ReadFull(z, buf); err != nil || !bytes.Equal(buf, make([]byte, 4096)) {
		return "", fmt.Errorf("/dev/zero: %v", err)
	}
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		return "", err
	}
	defer full.Close()
	_, ferr := full.Write([]byte("x"))
	r := make([]byte, 64)
	u, err := os.Open("/dev/urandom")
	if err != nil {
		return "", err
	}
	defer u.Close()
	if _, err := io.ReadFull(u, r); err != nil {
		return "", err
	}
	st, err := os.Stat("/dev/null")
	if err != nil {
		return "", err
	}
	rdev := st.Sys().(*syscall.Stat_t).Rdev
	return fmt.Sprintf("null took %d bytes and read %d (%v), zero reads zeros, full %s, urandom %d bytes not all zero %v, null is %v %d:%d",
		n, k, rerr, errnoName(ferr), len(r), !bytes.Equal(r, make([]byte, 64)), st.Mode().Type(), rdev>>8&0xfff, rdev&0xff), nil
}

// dup checks that duplicated descriptors share the file's position and that FD_CLOEXEC is each
// descriptor's own.
func dup(dir string) (string, error) {
	f, err := os.Create(filepath.Join(dir, "dup.txt"))
	if err != nil {
		return "", err
	}
	defer f.Close()
	fd := int(f.Fd())
	d, err := syscall.Dup(fd)
	if err != nil {
		return "", err
	}
	defer syscall.Close(d)
	if _, err := syscall.Write(d, []byte("via dup;")); err != nil {
		return "", err
	}
	pos, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString("via the original"); err != nil {
		return "", err
	}
	cl, err := fcntl(fd, syscall.F_GETFD, 0)
	if err != nil {
		return "", err
	}
	dcl, _ := fcntl(d, syscall.F_GETFD, 0)
	c, err := fcntl(fd, syscall.F_DUPFD_CLOEXEC, 100)
	if err != nil {
		return "", err
	}
	ccl, _ := fcntl(c, syscall.F_GETFD, 0)
	syscall.Close(c)
	if err := syscall.Close(d); err != nil {
		return "", err
	}
	b, err := os.ReadFile(f.Name())
	return fmt.Sprintf("shared position %d, %q, FD_CLOEXEC original %d dup %d, F_DUPFD_CLOEXEC from 100 got %d with %d, closing twice %s",
		pos, b, cl, dcl, c, ccl, errnoName(syscall.Close(d))), err
}

func fcntl(fd, cmd, arg int) (int, error) {
	r, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), uintptr(cmd), uintptr(arg))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// workdir moves the working directory into the scratch directory and back.
func workdir(dir string) (string, error) {
	if err := os.Chdir(dir); err != nil {
		return "", err
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	rel, err := os.ReadFile("b.txt")
	if err != nil {
		return "", err
	}
	if err := os.Chdir("d"); err != nil {
		return "", err
	}
	up, err := os.ReadFile("../b.txt")
	if err != nil {
		return "", err
	}
	if err := os.Chdir("/"); err != nil {
		return "", err
	}
	back, err := os.Getwd()
	return fmt.Sprintf("getwd in the scratch directory %v, relative reads %q %q, back at %s", wd == dir, rel, up, back), err
}
