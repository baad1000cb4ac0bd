package profile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/internal/profile/profiletest"
	"github.com/unitrace/unitrace/internal/tracefile"
)

// scenarioProfile builds the scenario's recording and its profile.
func scenarioProfile(t *testing.T, opt Options) (*profiletest.Scenario, *Profile) {
	t.Helper()
	sc := profiletest.NewScenario(program(t, "amd64"), "")
	return sc, recordingProfile(t, &sc.Rec, opt)
}

// recordingProfile encodes a synthetic recording, reads it back as a trace and builds its
// profile; the recording must read without errors.
func recordingProfile(t *testing.T, rec *profiletest.Recording, opt Options) *Profile {
	t.Helper()
	b, err := rec.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := tracefile.Load(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range tr.Errors {
		t.Errorf("recording: %v", e.Err)
	}
	im, err := OpenFor("", tr, false)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(tr, im, opt)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func withLost(want map[string]int, lost int) map[string]int {
	w := maps.Clone(want)
	w[FrameLost] = lost
	return w
}

func TestBuildScenario(t *testing.T) {
	sc, p := scenarioProfile(t, Options{})
	if got := Folded(p, FoldOptions{}); !maps.Equal(got, withLost(sc.Want, sc.Lost)) {
		t.Errorf("folded stacks with the leaf fix:\n got %v\nwant %v", got, withLost(sc.Want, sc.Lost))
	}
	if p.Fix[FixApplied] != sc.Fixed || p.Fix[FixLinked] != profiletest.NMidLinked+profiletest.NInline ||
		p.Fix[FixNoTrapFrame] != profiletest.NInexact || p.Fix[FixUnknownPC] != profiletest.NNoStack {
		t.Errorf("fix results %v; want %d fixed", p.Fix, sc.Fixed)
	}
	if len(p.Samples) != sc.Total() || p.IdleCount != sc.Idle || p.Records != sc.Total()+sc.Idle {
		t.Errorf("%d samples, %d idle, %d records; want %d, %d", len(p.Samples), p.IdleCount, p.Records, sc.Total(), sc.Idle)
	}
	if p.StartHz != 1000 || p.RateSource != "from THROTTLE records" || p.Throttles != 1 {
		t.Errorf("rate %v Hz (%s), %d throttles", p.StartHz, p.RateSource, p.Throttles)
	}
	for _, s := range p.Samples {
		want := int64(1e6)
		if s.CPU == 0 && s.Ns > 40_500_000 {
			want = 2e6 // after THROTTLE 1000 -> 500 Hz
		}
		if s.Period != want {
			t.Fatalf("sample at %d ns on cpu %d: period %d, want %d", s.Ns, s.CPU, s.Period, want)
		}
	}
	if p.LostTotal() != sc.Lost || p.Accel != "tcg" || p.StartUnixNs == 0 {
		t.Errorf("lost %d, accel %q, start %d", p.LostTotal(), p.Accel, p.StartUnixNs)
	}

	_, raw := scenarioProfile(t, Options{NoLeafFix: true})
	if got := Folded(raw, FoldOptions{}); !maps.Equal(got, withLost(sc.WantRaw, sc.Lost)) {
		t.Errorf("folded stacks without the leaf fix:\n got %v\nwant %v", got, withLost(sc.WantRaw, sc.Lost))
	}
	if raw.Fix[FixOff] != len(raw.Samples) {
		t.Errorf("--no-leaf-fix: %v", raw.Fix)
	}

	_, idle := scenarioProfile(t, Options{Idle: true})
	if got := Folded(idle, FoldOptions{})[FrameIdle]; got != sc.Idle {
		t.Errorf("--idle: %d [idle] samples, want %d", got, sc.Idle)
	}
}

func TestFoldedOptions(t *testing.T) {
	_, p := scenarioProfile(t, Options{})
	byCPU := Folded(p, FoldOptions{Group: GroupCPU})
	if byCPU["cpu 1;main.main;main.outer;main.mid;main.leaf"] != profiletest.NLeafCPU1 ||
		byCPU["cpu 0;main.main;main.outer;main.mid;main.leaf"] != profiletest.NLeaf ||
		byCPU["cpu 0;"+FrameLost] != profiletest.NLost {
		t.Errorf("-g cpu: %v", byCPU)
	}
	byThread := Folded(p, FoldOptions{Group: GroupThread})
	if byThread["tid 2;main.main;main.outer;main.mid;main.leaf"] != profiletest.NLeafCPU1 {
		t.Errorf("-g thread: %v", byThread)
	}
	short := Folded(p, FoldOptions{MaxDepth: 2, MinHits: 10})
	want := map[string]int{"main.main;main.outer": profiletest.NLeaf + profiletest.NLeafCPU1 + profiletest.NMidLinked +
		profiletest.NMidEntry + profiletest.NMidPush + profiletest.NInexact, "main.main;main.middle": profiletest.NAsm}
	if !maps.Equal(short, want) {
		t.Errorf("-max-depth 2 -min-hits 10: %v, want %v", short, want)
	}
	var buf bytes.Buffer
	if err := WriteFolded(&buf, p, FoldOptions{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != len(Folded(p, FoldOptions{})) || !strings.Contains(buf.String(), "main.main;main.middle;main.asmleaf 20\n") {
		t.Errorf("WriteFolded:\n%s", buf.String())
	}
	for i := 1; i < len(lines); i++ {
		if lines[i-1] >= lines[i] {
			t.Errorf("lines out of order: %q, %q", lines[i-1], lines[i])
		}
	}
}

func TestProfTree(t *testing.T) {
	sc, p := scenarioProfile(t, Options{})
	var buf bytes.Buffer
	if err := WriteProf(&buf, p, ProfOptions{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	t.Logf("\n%s", out)
	nLeaf := profiletest.NLeaf + profiletest.NLeafCPU1
	for _, want := range []string{
		fmt.Sprintf("%d samples (%d idle hidden: --idle shows them), ~%d lost, 1000 Hz (from THROTTLE records)", sc.Total(), sc.Idle, sc.Lost),
		fmt.Sprintf("leaf fix: fixed %d, frame linked %d", sc.Fixed, profiletest.NMidLinked+profiletest.NInline),
		"main.main\n",
		fmt.Sprintf(" |    \\-- %s %6d  main.mid  [self %d]\n", pctOf(nLeaf+18, sc.Total()), nLeaf+18, 18),
		fmt.Sprintf(" |         \\-- %s %6d  main.leaf\n", pctOf(nLeaf, sc.Total()), nLeaf),
		"main.middle\n", "main.asmleaf\n", "main.inl\n", FrameNoStack,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("prof output lacks %q", want)
		}
	}
	// The tree from the root: main.main holds everything but the
	// placeholder; its children are in hit order.
	root := Tree(p.Samples, GroupNone, false)
	if len(root.Children) != 2 || root.Children[0].Name != "main.main" || root.Children[0].Hits != sc.Total()-profiletest.NNoStack {
		t.Errorf("roots %v", root.Children)
	}
	// Reversed: the leaves are the roots.
	rev := Tree(p.Samples, GroupNone, true)
	if rev.Children[0].Name != "main.leaf" || rev.Children[0].Hits != nLeaf || rev.Children[0].Children[0].Name != "main.mid" {
		t.Errorf("reversed roots %v", rev.Children[0])
	}

	// --max-depth and --min-hits.
	buf.Reset()
	if err := WriteProf(&buf, p, ProfOptions{MaxDepth: 2, MinHits: "20%"}); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); strings.Contains(out, "main.leaf") || !strings.Contains(out, "main.outer") ||
		strings.Contains(out, "main.middle") || !strings.Contains(out, "below --min-hits") {
		t.Errorf("-max-depth 2 -min-hits 20%%:\n%s", out)
	}
}

func pctOf(n, total int) string { return fmt.Sprintf("%6.2f%%", 100*float64(n)/float64(total)) }

func TestProfFunction(t *testing.T) {
	_, p := scenarioProfile(t, Options{})
	nLeaf := profiletest.NLeaf + profiletest.NLeafCPU1
	// The leaf itself: index 0 of every stack it is on.
	callees, callers, matched := FunctionTrees(p.Samples, "leaf", GroupNone)
	if matched != nLeaf || callees.Children[0].Name != "main.leaf" || callees.Children[0].Self != nLeaf {
		t.Errorf("callees of leaf: matched %d, %v", matched, callees.Children)
	}
	if c := callers.Children[0]; c.Name != "main.leaf" || c.Children[0].Name != "main.mid" || c.Children[0].Children[0].Name != "main.outer" {
		t.Errorf("callers of leaf: %v", callers.Children)
	}
	// A function in the middle.
	callees, callers, matched = FunctionTrees(p.Samples, "main.mid", GroupNone)
	nMid := nLeaf + profiletest.NMidLinked + profiletest.NMidEntry + profiletest.NMidPush
	if matched != nMid || callees.Children[0].Self != nMid-nLeaf || callees.Children[0].Children[0].Hits != nLeaf {
		t.Errorf("callees of mid: matched %d, %+v", matched, callees.Children[0])
	}
	if c := callers.Children[0].Children[0]; c.Name != "main.outer" || c.Hits != nMid {
		t.Errorf("callers of mid: %+v", c)
	}
	var buf bytes.Buffer
	if err := WriteProf(&buf, p, ProfOptions{Function: "asmleaf"}); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, "asmleaf on the stack of 20 samples") || !strings.Contains(out, "main.middle") {
		t.Errorf("--function asmleaf:\n%s", out)
	}
	if err := WriteProf(io.Discard, p, ProfOptions{Function: "nosuch"}); !errors.Is(err, ErrNotOnStack) {
		t.Errorf("--function nosuch: %v", err)
	}
	if err := WriteProf(io.Discard, p, ProfOptions{MinHits: "x%"}); err == nil {
		t.Error("--min-hits x%: no error")
	}
}

func TestParseMinHits(t *testing.T) {
	for _, c := range []struct {
		in    string
		total int
		want  int
		err   bool
	}{
		{"", 100, 0, false}, {"5", 100, 5, false}, {"1%", 150, 2, false}, {"0.5%", 1000, 5, false},
		{"100%", 7, 7, false}, {"-1", 10, 0, true}, {"101%", 10, 0, true}, {"abc", 10, 0, true}, {"1x%", 10, 0, true},
	} {
		got, err := ParseMinHits(c.in, c.total)
		if got != c.want || (err != nil) != c.err {
			t.Errorf("ParseMinHits(%q, %d) = %d, %v", c.in, c.total, got, err)
		}
	}
	for _, g := range []string{"thread", "cpu", "none", ""} {
		if _, err := ParseGroup(g); err != nil {
			t.Errorf("ParseGroup(%q): %v", g, err)
		}
	}
	if _, err := ParseGroup("goid"); err == nil {
		t.Error("ParseGroup(goid): no error")
	}
}
