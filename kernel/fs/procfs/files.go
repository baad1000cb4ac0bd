package procfs

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/mm"
	"github.com/unitrace/unitrace/kernel/sched"
)

// The files' contents, in Linux's formats (fs/proc/*.c and the documentation of /proc). Each
// is made from the kernel's state when it is read: a read at offset off makes the text from its
// start and keeps [off, off+len(dst)), so a file read in pieces while the state changes may
// repeat or skip a little of a line whose length changed, as Linux's may between read calls.

// userHZ is USER_HZ, the unit of /proc's clock ticks.
const userHZ = 100

// Read copies the bytes of file n from offset off into dst, for the thread in slot caller, at
// wall-clock time now; filePages is the pages the namespace's in-memory file systems hold
// (meminfo's Shmem). A directory is EISDIR, a file that is gone ENOENT.
func (f *FS) Read(caller int32, n uint32, off int64, dst []byte, now fs.Timespec, filePages uint64) (int, int) {
	m := f.Mode(n)
	switch {
	case m == 0:
		return 0, abi.ENOENT
	case m&fs.S_IFMT == fs.S_IFDIR:
		return 0, abi.EISDIR
	case m&fs.S_IFMT != fs.S_IFREG:
		return 0, abi.EINVAL
	case off < 0:
		return 0, abi.EINVAL
	}
	if e, _ := split(n); e == eNsObject { // nsfs files have no read
		return 0, abi.EINVAL
	}
	t := newText(dst, off)
	s := f.s()
	mono := now.Sec*1e9 + now.Nsec - s.Info.BootWall
	e, arg := split(n)
	switch e {
	case eCmdline:
		s.cmdline(&t)
	case eEnviron:
		for i := 0; i < s.Cmdline.NumEnv(); i++ {
			t.str(s.Cmdline.Env(i))
			t.byte(0)
		}
	case eComm:
		t.bytes(s.comm())
		t.byte('\n')
	case eStatus:
		s.status(&t, arg)
	case eStat:
		s.stat(&t, arg, mono)
	case eMeminfo:
		s.meminfo(&t, filePages)
	case eCpuinfo:
		s.cpuinfo(&t)
	case eUptime:
		t.centis(mono)
		t.byte(' ')
		t.centis(s.idle(mono))
		t.byte('\n')
	case ePipeMaxSize:
		t.dec(fd.PipeSize)
		t.byte('\n')
	case eFdinfoFile:
		s.fdinfo(&t, int(arg))
	}
	return t.n(), 0
}

// Write is what a write to file n does: nothing; EIO for /proc's own files and EINVAL for a
// process's, as Linux answers root (who may open them for writing) for files without a write.
func (f *FS) Write(n uint32) int {
	if e, _ := split(n); e < ePid {
		return abi.EIO
	}
	return abi.EINVAL
}

// cmdline writes the arguments, each with its NUL: argv[0], the program's path, then those of
// the command line.
func (s *Sources) cmdline(t *text) {
	t.bytes(s.Info.exe())
	t.byte(0)
	for i := 0; i < s.Cmdline.NumArgs(); i++ {
		t.str(s.Cmdline.Arg(i))
		t.byte(0)
	}
}

// comm is the process's name: its path's last element, at most 15 bytes (TASK_COMM_LEN less the
// NUL), as exec names a process.
func (s *Sources) comm() []byte {
	exe := s.Info.exe()
	i := len(exe)
	for i > 0 && exe[i-1] != '/' {
		i--
	}
	return exe[i:min(len(exe), i+15)]
}

// slotOf is the thread slot that a process's (arg 0: the leader) or a thread's file is about.
func (s *Sources) slotOf(arg uint32) int32 {
	if arg&taskBit != 0 {
		return s.tidSlot(int32(arg & tidMask))
	}
	return s.leader()
}

// state is a thread's state as status names it.
func (s *Sources) state(slot int32) (letter byte, name string) {
	if slot >= 0 && s.Sched.State(slot) == sched.Blocked {
		return 'S', "sleeping"
	}
	return 'R', "running"
}

// cpus is the number of CPUs online.
func (s *Sources) cpus() int {
	n := 0
	for m := s.Sched.All(); m != 0; m &= m - 1 {
		n++
	}
	return n
}

// status writes a process's or thread's status (fs/proc/array.c's order): its name, state and
// ids (everything is root's; one process, with no parent), the descriptor table's size, the
// threads and the CPUs the thread may run on.
func (s *Sources) status(t *text, arg uint32) {
	slot := s.slotOf(arg)
	pid := uint64(s.Info.Pid)
	id := pid
	if arg&taskBit != 0 {
		id = uint64(arg & tidMask)
	}
	t.field("Name")
	t.bytes(s.comm())
	t.str("\nUmask:\t")
	t.radix(uint64(*s.Umask), 8, 4)
	letter, name := s.state(slot)
	t.str("\nState:\t")
	t.byte(letter)
	t.str(" (")
	t.str(name)
	t.str(")\nTgid:\t")
	t.dec(pid)
	t.str("\nNgid:\t0\nPid:\t")
	t.dec(id)
	t.str("\nPPid:\t0\nTracerPid:\t0\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nFDSize:\t")
	t.dec(fd.MaxFDs)
	t.str("\nGroups:\t \nNStgid:\t")
	t.dec(pid)
	t.str("\nNSpid:\t")
	t.dec(id)
	anon, file := s.rss()
	t.str("\nVmRSS:\t")
	t.decw((anon+file)>>10, 8, ' ')
	t.str(" kB\nRssAnon:\t")
	t.decw(anon>>10, 8, ' ')
	t.str(" kB\nRssFile:\t")
	t.decw(file>>10, 8, ' ')
	t.str(" kB\nRssShmem:\t       0 kB\nThreads:\t")
	t.dec(uint64(s.threads()))
	var mask uint64
	if slot >= 0 {
		mask = s.Sched.Affinity(slot) & s.Sched.All()
	}
	t.str("\nCpus_allowed:\t")
	t.hex(mask, (s.cpus()+3)/4)
	t.str("\nCpus_allowed_list:\t")
	cpuList(t, mask)
	t.byte('\n')
}

// rss is the resident memory in bytes: the pages mapped into the program's address space
// (its heap, stacks, mappings: Linux's RssAnon) and the image (RssFile: the program's
// executable, which here holds the kernel too, and is all in memory).
func (s *Sources) rss() (anon, file uint64) {
	return *s.UserPages * mm.PageSize, s.Info.ImageBytes
}

// cpuList writes a CPU mask as a list of ranges ("0-1,3").
func cpuList(t *text, mask uint64) {
	first := true
	for c := 0; c < 64; c++ {
		if mask&(1<<c) == 0 {
			continue
		}
		end := c
		for end+1 < 64 && mask&(1<<(end+1)) != 0 {
			end++
		}
		if !first {
			t.byte(',')
		}
		first = false
		t.dec(uint64(c))
		if end > c {
			t.byte('-')
			t.dec(uint64(end))
		}
		c = end
	}
}

// stat writes a process's or thread's stat line (fs/proc/array.c's do_task_stat): its ids,
// state, CPU times in clock ticks, threads, resident pages and the CPU it last ran on; the
// fields that count what this kernel does not (faults, virtual size, signals, addresses) are
// 0, and the limits unlimited.
func (s *Sources) stat(t *text, arg uint32, mono int64) {
	slot := s.slotOf(arg)
	pid := uint64(s.Info.Pid)
	id := pid
	if arg&taskBit != 0 {
		id = uint64(arg & tidMask)
	}
	var total, system int64
	if arg&taskBit != 0 && slot >= 0 {
		total, system = s.Sched.Times(slot, mono, s.Clock)
	} else {
		total, system = s.Sched.ProcessTimes(mono, s.Clock)
	}
	letter, _ := s.state(slot)
	t.dec(id)
	t.str(" (")
	t.bytes(s.comm())
	t.str(") ")
	t.byte(letter)
	t.str(" 0 ") // ppid
	t.dec(pid)   // pgrp
	t.byte(' ')
	t.dec(pid) // session
	t.str(" 0 -1 0 0 0 0 0 ")
	t.dec(uint64(ticks(total - system)))
	t.byte(' ')
	t.dec(uint64(ticks(system)))
	t.str(" 0 0 20 0 ")
	t.dec(uint64(s.threads()))
	anon, file := s.rss()
	t.str(" 0 0 0 ") // itrealvalue, starttime (at boot), vsize
	t.dec((anon + file) / mm.PageSize)
	t.str(" 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 ")
	cpu := int32(0)
	if slot >= 0 {
		cpu = max(s.Sched.CPU(slot), 0)
	}
	t.dec(uint64(cpu))
	t.str(" 0 0 0 0 0 0 0 0 0 0 0 0 0\n")
}

// ticks converts ns to clock ticks.
func ticks(ns int64) int64 { return max(ns, 0) / (1e9 / userHZ) }

// idle is the CPUs' idle time for uptime: the time since boot on every CPU, less what the
// program's threads used. Linux counts each CPU's time in its idle task; here the idle threads'
// time is not counted, and the kernel's own time outside threads (interrupts on idle CPUs) counts
// as idle.
func (s *Sources) idle(mono int64) int64 {
	return max(int64(s.cpus())*mono-s.Sched.ProcessCPUTime(mono), 0)
}

// meminfo writes the memory the frame allocator manages: all of it, what is free, and what
// the in-memory file systems hold (Linux counts tmpfs's pages as Shmem, and in Cached). Nothing
// can be reclaimed (there is no page cache to drop, no swap), so what is available is what is
// free.
func (s *Sources) meminfo(t *text, filePages uint64) {
	st := s.Frames.Stats()
	const kib = mm.PageSize / 1024
	t.kB("MemTotal:", st.Total*kib)
	t.kB("MemFree:", st.Free*kib)
	t.kB("MemAvailable:", st.Free*kib)
	t.kB("Buffers:", 0)
	t.kB("Cached:", filePages*kib)
	t.kB("SwapCached:", 0)
	t.kB("SwapTotal:", 0)
	t.kB("SwapFree:", 0)
	t.kB("Shmem:", filePages*kib)
}

// fdinfo writes a descriptor's position, status flags (F_GETFL's, and O_CLOEXEC for
// FD_CLOEXEC, in octal) and inode number.
func (s *Sources) fdinfo(t *text, n int) {
	var pos int64
	ino := s.FDs.Inode(n)
	if file, ok := s.FDs.File(n); ok {
		pos, ino = file.Pos, uint64(file.Node.Ino)
	}
	flags, _ := s.FDs.Fcntl(n, fd.F_GETFL, 0)
	if cloexec, _ := s.FDs.Fcntl(n, fd.F_GETFD, 0); cloexec&fd.FD_CLOEXEC != 0 {
		flags |= fs.O_CLOEXEC
	}
	t.str("pos:\t")
	t.int(pos)
	t.str("\nflags:\t0")
	t.radix(uint64(flags), 8, 1)
	t.str("\nmnt_id:\t0\nino:\t")
	t.dec(ino)
	t.byte('\n')
}
