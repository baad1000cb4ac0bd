package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

// testdata/linux.console is a Linux guest's console from scripts/perfcompare.sh, cut down: the
// record and sysctl sections whole, a few entries of each perf report (with the colour codes
// perf wrote on the serial console), eleven samples of perf script. testdata/unitrace-*.console
// and .folded.txt are `unitrace run -sample 1000 ... syscall 4s` consoles and their recordings'
// `unitrace folded`, whole: "masked" from a kernel that ran system calls with interrupts masked
// (one sample a stack, no kernel frames), "weighted" from one that samples inside them (kernel
// frames marked "_[k]", each stack counting the deadlines its samples stand for).

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseConsole(t *testing.T) {
	c, err := parseConsole(bytes.NewReader(readFile(t, "testdata/linux.console")))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"record", "report-self", "report-children", "script", "sysctl"} {
		lines, err := c.section(name)
		if err != nil {
			t.Fatalf("section %s: %v", name, err)
		}
		for _, l := range lines {
			if strings.ContainsAny(l, "\r\x1b") {
				t.Fatalf("section %s: line %q keeps a CR or a colour code", name, l)
			}
		}
	}
	if _, err := c.section("nothing"); err == nil {
		t.Error("a missing section gave no error")
	}
	bad := "perfcompare: begin record\nx\nperfcompare: end record status=3\nperfcompare: begin script\ny\n"
	c, err = parseConsole(strings.NewReader(bad))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.section("record"); err == nil || !strings.Contains(err.Error(), "status 3") {
		t.Errorf("failed section: %v, want status 3", err)
	}
	if _, err := c.section("script"); err == nil || !strings.Contains(err.Error(), "did not end") {
		t.Errorf("unfinished section: %v", err)
	}
}

func linuxSections(t *testing.T) *console {
	t.Helper()
	c, err := parseConsole(bytes.NewReader(readFile(t, "testdata/linux.console")))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestParsePerfScript(t *testing.T) {
	lines, err := linuxSections(t).section("script")
	if err != nil {
		t.Fatal(err)
	}
	p, err := parsePerfScript(lines)
	if err != nil {
		t.Fatal(err)
	}
	// Eleven samples, two of them the same spinLeaf stack.
	if len(p.stacks) != 10 {
		t.Errorf("%d distinct stacks, want 10", len(p.stacks))
	}
	var chacha *stack
	for i := range p.stacks {
		if p.stacks[i].frames[0].name == "chacha_permute" {
			chacha = &p.stacks[i]
		}
	}
	if chacha == nil {
		t.Fatal("no chacha_permute sample")
	}
	// Kernel frames by address, user ones after them, ".abi0" dropped.
	want := []string{"chacha_permute", "chacha_block_generic", "get_random_bytes_user", "__x64_sys_getrandom",
		"do_syscall_64", "entry_SYSCALL_64_after_hwframe", "internal/runtime/syscall/linux.Syscall6",
		"syscall.Syscall", "main.fill", "main.sysPhase", "main.syscallWorkload", "main.main", "runtime.main", "runtime.goexit"}
	if len(chacha.frames) != len(want) {
		t.Fatalf("chacha stack %v, want %v", chacha.frames, want)
	}
	for i, f := range chacha.frames {
		if f.name != want[i] || f.kernel != (i < 6) {
			t.Errorf("frame %d = %+v, want %s (kernel %v)", i, f, want[i], i < 6)
		}
	}
	got := measure(p)
	wantShares := shares{total: 11, workload: 7, compute: 3, sys: 3, sysKernel: 2, userPhase: 1, spinLeaf: 2, spinByCaller: 0, pkgInit: 1}
	if got != wantShares {
		t.Errorf("shares %+v\nwant %+v", got, wantShares)
	}

	for _, bad := range [][]string{
		{"\tffffffff81000000 f"},                 // a frame before any header
		{"workload 1 1000000", "\tzzzz f"},       // not an address
		{"workload 1 1000000", "\tffffffff8100"}, // no symbol
		{"workload"},                             // not a header
		{"", ""},                                 // nothing
	} {
		if _, err := parsePerfScript(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParsePerfReport(t *testing.T) {
	c := linuxSections(t)
	self, err := reportSection(c, "report-self", false)
	if err != nil {
		t.Fatal(err)
	}
	if self.lost != 0 || self.event != "cpu-clock:ppp" {
		t.Errorf("lost %d, event %q", self.lost, self.event)
	}
	if e := self.entries[fnSpinLeaf]; e.self != 36.77 || e.kind != '.' {
		t.Errorf("spinLeaf %+v, want self 36.77 [.]", e)
	}
	if e := self.entries["copy_user_enhanced_fast_string"]; e.self != 26.13 || e.kind != 'k' {
		t.Errorf("copy_user_enhanced_fast_string %+v, want self 26.13 [k]", e)
	}
	if len(self.entries) != 7 {
		t.Errorf("%d entries, want 7 (call-graph lines are not entries): %v", len(self.entries), self.entries)
	}
	if k := self.kernelSelf(); k < 36.30 || k > 36.32 {
		t.Errorf("kernel self %.2f, want 36.31", k)
	}
	children, err := reportSection(c, "report-children", true)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]reportEntry{
		"runtime.goexit": {92.15, 0, '.'},
		fnSysPhase:       {45.21, 0.02, '.'},
		fnFill:           {45.18, 0, '.'},
		fnSpinLeaf:       {43.05, 36.77, '.'},
		fnUserPhase:      {1.00, 0.22, '.'},
	} {
		if got := children.entries[name]; got != want {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
	if len(children.entries) != 6 {
		t.Errorf("%d entries, want 6", len(children.entries))
	}
	selfLines, _ := c.section("report-self")
	if _, err := parsePerfReport(selfLines, true); err == nil {
		t.Error("a --no-children report read as --children")
	}
	childLines, _ := c.section("report-children")
	if _, err := parsePerfReport(childLines, false); err == nil {
		t.Error("a --children report read as --no-children")
	}
	if _, err := parsePerfReport([]string{"perf: command not found"}, false); err == nil {
		t.Error("no report, no error")
	}
}

func TestAnalyzeLinux(t *testing.T) {
	out := readFile(t, "testdata/linux.console")
	sd, err := analyzeLinux(out, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if sd.truth != (truth{userNs: 2037999258, sysNs: 1967678675, elapsed: 4015 * time.Millisecond}) {
		t.Errorf("truth %+v", sd.truth)
	}
	if sd.taken != 11 || sd.prof.lost != 0 {
		t.Errorf("taken %d lost %d", sd.taken, sd.prof.lost)
	}
	// The capture keeps eleven of perf record's 4088 samples.
	if len(sd.notes) != 1 || !strings.Contains(sd.notes[0], "4088") {
		t.Errorf("notes %q", sd.notes)
	}
	if !strings.Contains(sd.perfCheck, "main.sysPhase 45.21%") {
		t.Errorf("cross-check %q", sd.perfCheck)
	}
	// The unitrace kernel must stay dormant in a Linux process.
	noisy := bytes.Replace(out, []byte("groundtruth: syscall elapsed"), []byte("unitrace: sampler: on\r\ngroundtruth: syscall elapsed"), 1)
	if _, err := analyzeLinux(noisy, 1000); err == nil || !strings.Contains(err.Error(), "dormant") {
		t.Errorf("unitrace output under Linux: %v", err)
	}
}

func TestParseFoldedMasked(t *testing.T) {
	sd, err := analyzeUnitrace(readFile(t, "testdata/unitrace-masked.console"), readFile(t, "testdata/unitrace-masked.folded.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if sd.truth != (truth{userNs: 2012126033, sysNs: 1998429416, elapsed: 4018 * time.Millisecond}) {
		t.Errorf("truth %+v", sd.truth)
	}
	if sd.taken != 2215 || sd.late != "753" || sd.missed != "1926" || sd.prof.lost != 0 {
		t.Errorf("taken %d late %s missed %s lost %d", sd.taken, sd.late, sd.missed, sd.prof.lost)
	}
	// Today's kernel masks interrupts in system calls: the system-call phase's samples all land
	// after the call, at Syscall6 in user mode.
	want := shares{total: 2215, workload: 1986, compute: 1787, sys: 193, sysKernel: 0, userPhase: 1787, spinLeaf: 1780, spinByCaller: 1780, foreign: 60, pkgInit: 22}
	if sd.s != want {
		t.Errorf("shares %+v\nwant %+v", sd.s, want)
	}
	if len(sd.notes) != 0 {
		t.Errorf("notes %q", sd.notes)
	}
}

func TestParseFoldedWeighted(t *testing.T) {
	sd, err := analyzeUnitrace(readFile(t, "testdata/unitrace-weighted.console"), readFile(t, "testdata/unitrace-weighted.folded.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if sd.truth != (truth{userNs: 2069249856, sysNs: 1958383940, elapsed: 4038 * time.Millisecond}) {
		t.Errorf("truth %+v", sd.truth)
	}
	// "1185 missed (carried as weight)"
	if sd.taken != 2969 || sd.late != "614" || sd.missed != "1185" || sd.prof.lost != 0 {
		t.Errorf("taken %d late %s missed %s lost %d", sd.taken, sd.late, sd.missed, sd.prof.lost)
	}
	want := shares{total: 4153, workload: 3825, compute: 1925, sys: 1889, sysKernel: 1887, userPhase: 1925, spinLeaf: 1924, spinByCaller: 1924, foreign: 2104, pkgInit: 36}
	if sd.s != want {
		t.Errorf("shares %+v\nwant %+v", sd.s, want)
	}
	if len(sd.notes) != 1 || !strings.Contains(sd.notes[0], "weighs the deadlines") {
		t.Errorf("notes %q", sd.notes)
	}
}

// TestParseFoldedKernelFrames: stacks that go on into the unitrace kernel, named by package or
// marked "_[k]", and the lost-samples stack (made up: the shapes a kernel that samples inside
// system calls gives).
func TestParseFoldedKernelFrames(t *testing.T) {
	in := `runtime.main;main.main;main.syscallWorkload;main.sysPhase;main.fill;syscall.Syscall;internal/runtime/syscall/linux.Syscall6;github.com/unitrace/unitrace/kernel.sysGetrandom;github.com/unitrace/unitrace/kernel.fillRandom 5
runtime.main;main.main;main.syscallWorkload;main.sysPhase;main.fill;syscall.Syscall;internal/runtime/syscall/linux.Syscall6;github.com/unitrace/unitrace/arch/amd64.syscallEntry 1
runtime.main;main.main;main.syscallWorkload;main.sysPhase;main.fill;syscall.Syscall;internal/runtime/syscall/linux.Syscall6;getrandom_[k];chacha_[k] 3
runtime.main;main.main;main.syscallWorkload;main.sysPhase;main.fill;syscall.Syscall;internal/runtime/syscall/linux.Syscall6 2
runtime.main;main.main;main.syscallWorkload;main.userPhase;main.spinLeaf 9
go.shape.struct { a int, b int };main.f 1
[lost samples] 4
`
	p, err := parseFolded(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if p.lost != 4 {
		t.Errorf("lost %d, want 4", p.lost)
	}
	s := measure(p)
	if s.total != 21 || s.sys != 11 || s.sysKernel != 9 || s.spinByCaller != 9 || s.foreign != 6 {
		t.Errorf("shares %+v", s)
	}
	if f := p.stacks[2].frames[0]; f.name != "chacha" || !f.kernel {
		t.Errorf("marked leaf %+v", f)
	}
	if f := p.stacks[5].frames[1]; f.name != "go.shape.struct { a int, b int }" {
		t.Errorf("frame with spaces %+v", f)
	}
	for _, bad := range []string{"main.main\n", "main.main x\n", "main.main -1\n", "\n"} {
		if _, err := parseFolded(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseSampler(t *testing.T) {
	smp := []string{
		"unitrace: sampler: cpu 0: 100 samples, 3 late, 7 missed, 0 throttled; handler cost ...",
		"unitrace: sampler: cpu 1: 50 samples, 1 late, 2 missed, 1 throttled; handler cost ...",
	}
	s, err := parseSampler(smp)
	if err != nil {
		t.Fatal(err)
	}
	if s != (samplerStats{samples: 150, late: 4, missed: 9, cpus: 2}) {
		t.Errorf("%+v", s)
	}
	if _, err := parseSampler([]string{"unitrace: exit status 0"}); err == nil {
		t.Error("no sampler line, no error")
	}
	if _, err := parseTruth([]string{"groundtruth: syscall user_ns=1 sys_ns=2"}, "syscall"); err == nil {
		t.Error("no summary line, no error")
	}
}

func TestSplitFunc(t *testing.T) {
	for _, c := range []struct{ in, pkg, fn string }{
		{"github.com/unitrace/unitrace/trace/wire.map.init.0", "github.com/unitrace/unitrace/trace/wire", "map.init.0"},
		{"github.com/unitrace/unitrace/kernel.init.0", "github.com/unitrace/unitrace/kernel", "init.0"},
		{"main.(*T).f", "main", "(*T).f"},
		{"runtime.goexit", "runtime", "goexit"},
	} {
		pkg, fn, ok := splitFunc(c.in)
		if !ok || pkg != c.pkg || fn != c.fn {
			t.Errorf("splitFunc(%q) = %q, %q, %v", c.in, pkg, fn, ok)
		}
	}
	if _, _, ok := splitFunc("copy_user_enhanced_fast_string"); ok {
		t.Error("a C symbol split")
	}
	if n := lostChunks([]string{"Warning:", "Processed 4100 events and lost 3 chunks!"}); n != 3 {
		t.Errorf("lost chunks %d, want 3", n)
	}
}

func TestPrintTable(t *testing.T) {
	lin, err := analyzeLinux(readFile(t, "testdata/linux.console"), 1000)
	if err != nil {
		t.Fatal(err)
	}
	uni, err := analyzeUnitrace(readFile(t, "testdata/unitrace-masked.console"), readFile(t, "testdata/unitrace-masked.folded.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	printTable(&b, &options{duration: 4 * time.Second, freq: 1000}, lin, uni)
	for _, want := range []string{
		"| samples taken | 11 | 2215 |",
		"| deadlines late / missed | not reported / not reported | 753 / 1926 |",
		"| of the spinLeaf samples, caller userPhase | 0.0% | 100.0% |",
		"| of the system-call phase, leaf in the kernel | 66.7% (2 of 3) | 0.0% (0 of 193) |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
}
