//go:build linux && amd64

// Command linuxinit is the /init of netcompare's Linux guest. It loads the network driver's
// modules (the files /modules/order names, in that order: Debian's cloud kernel builds
// virtio-net as a module), brings up the loopback interface and eth0 with QEMU user
// networking's address (10.0.2.15/24), runs /workload with the arguments after "--" on the
// kernel command line, and powers the machine off when it ends.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"unsafe"
)

func main() {
	if err := setup(); err != nil {
		fmt.Printf("netcompare: init: %v\n", err)
		halt()
	}
	cmd := exec.Command("/workload", os.Args[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stdout
	if err := cmd.Run(); err != nil {
		fmt.Printf("netcompare: workload: %v\n", err)
	}
	halt()
}

func setup() error {
	for _, m := range []struct{ dir, fs string }{{"/proc", "proc"}, {"/sys", "sysfs"}, {"/dev", "devtmpfs"}} {
		os.MkdirAll(m.dir, 0o755)
		if err := syscall.Mount(m.fs, m.dir, m.fs, 0, ""); err != nil && err != syscall.EBUSY {
			return fmt.Errorf("mount %s: %w", m.dir, err)
		}
	}
	order, err := os.ReadFile("/modules/order")
	if err != nil {
		return err
	}
	for _, name := range strings.Fields(string(order)) {
		if err := loadModule(filepath.Join("/modules", name)); err != nil {
			return fmt.Errorf("module %s: %w", name, err)
		}
	}
	if err := ifUp("lo", [4]byte{127, 0, 0, 1}, [4]byte{255, 0, 0, 0}); err != nil {
		return err
	}
	return ifUp("eth0", [4]byte{10, 0, 2, 15}, [4]byte{255, 255, 255, 0})
}

// sysFinitModule is finit_module's number on amd64 (arch/x86/entry/syscalls/syscall_64.tbl);
// package syscall predates the call.
const sysFinitModule = 313

// loadModule is finit_module(2) with no parameters.
func loadModule(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	params := []byte{0}
	_, _, e := syscall.Syscall(sysFinitModule, f.Fd(), uintptr(unsafe.Pointer(&params[0])), 0)
	if e != 0 && e != syscall.EEXIST {
		return e
	}
	return nil
}

// ifreq is struct ifreq (<net/if.h>): the name, then a sockaddr or the flags.
type ifreq struct {
	name [16]byte
	data [24]byte
}

// ifUp gives interface name its address and netmask and sets it up (SIOCSIFADDR,
// SIOCSIFNETMASK, SIOCSIFFLAGS).
func ifUp(name string, addr, mask [4]byte) error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	sockaddr := func(ip [4]byte) ifreq {
		var r ifreq
		copy(r.name[:], name)
		r.data[0] = syscall.AF_INET // sa_family, little-endian
		copy(r.data[4:8], ip[:])
		return r
	}
	for _, c := range []struct {
		req uintptr
		r   ifreq
	}{{syscall.SIOCSIFADDR, sockaddr(addr)}, {syscall.SIOCSIFNETMASK, sockaddr(mask)}} {
		if err := ioctl(fd, c.req, &c.r); err != nil {
			return fmt.Errorf("%s: ioctl %#x: %w", name, c.req, err)
		}
	}
	var r ifreq
	copy(r.name[:], name)
	if err := ioctl(fd, syscall.SIOCGIFFLAGS, &r); err != nil {
		return fmt.Errorf("%s: SIOCGIFFLAGS: %w", name, err)
	}
	flags := uint16(r.data[0]) | uint16(r.data[1])<<8 | syscall.IFF_UP | syscall.IFF_RUNNING
	r.data[0], r.data[1] = byte(flags), byte(flags>>8)
	if err := ioctl(fd, syscall.SIOCSIFFLAGS, &r); err != nil {
		return fmt.Errorf("%s: SIOCSIFFLAGS: %w", name, err)
	}
	return nil
}

func ioctl(fd int, req uintptr, r *ifreq) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), req, uintptr(unsafe.Pointer(r))); e != 0 {
		return e
	}
	return nil
}

func halt() {
	syscall.Sync()
	syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF)
	select {}
}
