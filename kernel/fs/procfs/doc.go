// Package procfs is the process file system the kernel mounts at /proc: Linux's files that
// programs read to learn about themselves and the machine, made from the kernel's state each
// time they are read, in Linux's formats.
//
//	/proc/self                 link to <pid>
//	/proc/thread-self          link to <pid>/task/<tid> of the thread that looks
//	/proc/<pid>/cmdline        the arguments, each ended by a NUL
//	/proc/<pid>/environ        the initial environment, likewise
//	/proc/<pid>/exe            link to the program's path (argv[0])
//	/proc/<pid>/cwd, root      magic links to the working directory and to /
//	/proc/<pid>/fd/<n>         magic link to descriptor n's file, or its name ("pipe:[3]")
//	/proc/<pid>/fdinfo/<n>     its position, flags and inode
//	/proc/<pid>/comm, status, stat
//	/proc/<pid>/task/<tid>/    a thread's cmdline, comm, cwd, environ, exe, root, stat, status
//	/proc/cpuinfo, meminfo, uptime, sys/fs/pipe-max-size
//
// A file is named by its inode number alone (tree.go), so FS keeps no state of its own, and
// every answer is what the kernel's state says when it is asked: a descriptor's link exists
// while the descriptor is open, a thread's directory while the thread lives. Directories list
// and stat as Linux's (dr-xr-xr-x, fd/ dr-x------), files are -r--r--r-- with size 0 (environ
// -r--------), links lrwxrwxrwx (an fd link's permissions are its descriptor's access mode).
// Nothing can be made, removed or renamed; writes fail as Linux's fail for root, who may open
// the files for writing.
//
// Package vfs mounts FS and resolves paths through it: the magic links (fd/<n>, cwd, root) lead
// to the file itself, not to a path, and a descriptor with no file behind it (a pipe, a
// socket, the console) is the system call layer's to open (Target says which).
//
// It is kernel-mode Go: FS holds an address and nothing else, nothing allocates, and the
// kernel's state is read through Sources (sources.go), whose pointers the kernel initialises
// statically.
package procfs
