// Command files exercises the kernel's file system through the os package and the standard
// library above it: reading and writing, seeking, renaming, links, directories and their walks,
// os.CopyFS, testing/fstest.TestFS over a tree it wrote, /dev, the working directory, pipes, and
// the errors Linux gives (ENOENT, EEXIST, ENOTEMPTY, EISDIR, ...). It prints one deterministic line
// per check, so a test can compare the console line by line, and exits with status 0.
//
// With the argument "unitrace" it also checks what only a unitrace image has: its /proc (the
// program's path, arguments and descriptors, the machine's memory and CPUs, Linux's errors for
// root), no /sys and none of the files the Go runtime probes for, os/user's root and nobody from
// the kernel's /etc/passwd and /etc/group, a tmpfs at "/", filling /tmp,
// ENOSPC at the capacity unitrace.fsmem gave it (the VM test boots it with unitrace.fsmem=16M),
// and that no other process can start. Without it, it runs on the host too (go run
// ./examples/files), where the output is the same.
package main

import (
	"fmt"
	"os"

	_ "github.com/unitrace/unitrace/kernel"
)

// check is one check: it returns its result line (without the name) or an error.
type check struct {
	name string
	run  func(dir string) (string, error)
}

// checks run in this order, each in the scratch directory the program made.
var checks = []check{
	{"write and read", writeRead},
	{"append", appendFile},
	{"seek", seek},
	{"sparse", sparse},
	{"truncate", truncate},
	{"rename", rename},
	{"links", links},
	{"symlinks", symlinks},
	{"errors", errorsCheck},
	{"modes", modes},
	{"readdir", readDir},
	{"walk", walk},
	{"copyfs", copyFS},
	{"fstest", testFS},
	{"dup", dup},
	{"pointers", pointers},
	{"devices", devices},
	{"workdir", workdir},
	{"pipes", pipes},
	{"raw pipes", rawPipes},
	{"blocking pipes", blockingPipes},
	{"fifos", fifos},
	{"locks", locks},
	{"xattrs", xattrs},
	{"mremap", remaps},
	{"scm", scm},
}

// unitraceChecks run only with the argument "unitrace".
var unitraceChecks = []check{
	{"proc self", procSelf},
	{"proc fd", procFD},
	{"proc machine", procMachine},
	{"proc errors", procErrors},
	{"no sys", noSys},
	{"users", users},
	{"statfs", statfs},
	{"fill", fill},
	{"exec", noExec},
}

func main() {
	fmt.Println("files: unitrace file system workload")
	list := checks
	if len(os.Args) > 1 && os.Args[1] == "unitrace" {
		list = append(list, unitraceChecks...)
	}
	wd, err := os.Getwd()
	fmt.Printf("start: working directory %s (%v)\n", wd, err)
	dir, err := os.MkdirTemp("", "files-")
	if err != nil {
		fmt.Println("mkdirtemp: FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("mkdirtemp: made a scratch directory")
	failed := 0
	for _, c := range list {
		line, err := c.run(dir)
		if err != nil {
			failed++
			fmt.Printf("%s: FAIL: %v\n", c.name, err)
			continue
		}
		fmt.Printf("%s: %s\n", c.name, line)
	}
	if err := os.RemoveAll(dir); err != nil {
		failed++
		fmt.Println("removeall: FAIL:", err)
	} else if _, err := os.Lstat(dir); !isErrno(err, "ENOENT") {
		failed++
		fmt.Printf("removeall: FAIL: the directory is still there (%v)\n", err)
	} else {
		fmt.Println("removeall: the scratch directory is gone")
	}
	if failed > 0 {
		fmt.Printf("exit: 1 (%d checks failed)\n", failed)
		os.Exit(1)
	}
	fmt.Println("exit: 0")
}
