package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// frameLost is the stack `unitrace folded` gives the samples a recording lost.
const frameLost = "[lost samples]"

// parseFolded reads `unitrace folded` output: one "root;...;leaf COUNT" line per distinct
// stack (the count after the last space: a frame name may hold spaces). A frame of the unitrace
// kernel (kernel/, arch/ or boot/ packages) or one marked "_[k]" is a kernel frame.
func parseFolded(r io.Reader) (*profile, error) {
	p := &profile{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i <= 0 {
			return nil, fmt.Errorf("line %d: no count: %q", n, line)
		}
		count, err := strconv.Atoi(line[i+1:])
		if err != nil || count < 0 {
			return nil, fmt.Errorf("line %d: bad count: %q", n, line)
		}
		path := strings.Split(line[:i], ";")
		if len(path) == 1 && path[0] == frameLost {
			p.lost += count
			continue
		}
		fr := make([]frame, len(path))
		for j, f := range path {
			name, mark := cleanName(f)
			fr[len(path)-1-j] = frame{name: name, kernel: mark || unitraceKernel(name)}
		}
		p.stacks = append(p.stacks, stack{frames: fr, count: count})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(p.stacks) == 0 {
		return nil, errors.New("no stacks")
	}
	return p, nil
}

// samplerStats is what the unitrace kernel's sampler reports at exit, summed over CPUs:
//
//	sampler: [cpu N: ]N samples, N late, N missed, N throttled; handler cost ...
type samplerStats struct {
	samples, late, missed int
	cpus                  int // report lines seen
}

var samplerRE = regexp.MustCompile(`sampler: (?:cpu \d+: )?(\d+) samples, (\d+) late, (\d+) missed`)

func parseSampler(lines []string) (samplerStats, error) {
	var s samplerStats
	for _, l := range lines {
		m := samplerRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[2])
		c, _ := strconv.Atoi(m[3])
		s.samples += a
		s.late += b
		s.missed += c
		s.cpus++
	}
	if s.cpus == 0 {
		return s, errors.New("no \"sampler: N samples, N late, N missed\" line")
	}
	return s, nil
}

// truth is what the workload measured and printed itself (examples/groundtruth):
//
//	groundtruth: syscall user_ns=N sys_ns=N
//	groundtruth: syscall elapsed=D calls=N units=N checksum=0xHEX
type truth struct {
	userNs, sysNs int64
	elapsed       time.Duration
}

func parseTruth(lines []string, workload string) (truth, error) {
	var t truth
	split, summary := false, false
	prefix := "groundtruth: " + workload + " "
	for _, l := range lines {
		i := strings.Index(l, prefix)
		if i < 0 {
			continue
		}
		kv := map[string]string{}
		for _, f := range strings.Fields(l[i+len(prefix):]) {
			if k, v, ok := strings.Cut(f, "="); ok {
				kv[k] = v
			}
		}
		if u, ok := kv["user_ns"]; ok {
			var err1, err2 error
			t.userNs, err1 = strconv.ParseInt(u, 10, 64)
			t.sysNs, err2 = strconv.ParseInt(kv["sys_ns"], 10, 64)
			if err := errors.Join(err1, err2); err != nil {
				return t, fmt.Errorf("bad line %q: %w", l, err)
			}
			split = true
		}
		if e, ok := kv["elapsed"]; ok {
			d, err := time.ParseDuration(e)
			if err != nil {
				return t, fmt.Errorf("bad line %q: %w", l, err)
			}
			t.elapsed, summary = d, true
		}
	}
	if !split || !summary {
		return t, fmt.Errorf("no %q user_ns=... and elapsed=... lines: the workload did not finish", strings.TrimSpace(prefix))
	}
	return t, nil
}
