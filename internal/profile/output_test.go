package profile

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"

	"github.com/unitrace/unitrace/internal/profile/profiletest"
	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/trace/record"
)

func TestPProf(t *testing.T) {
	sc, p := scenarioProfile(t, Options{})
	var buf bytes.Buffer
	if err := WritePProf(&buf, p); err != nil {
		t.Fatal(err)
	}
	pp, err := pprof.Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(pp.SampleType) != 2 || pp.SampleType[0].Type != "samples" || pp.SampleType[0].Unit != "count" ||
		pp.SampleType[1].Type != "cpu" || pp.SampleType[1].Unit != "nanoseconds" ||
		pp.PeriodType.Type != "cpu" || pp.PeriodType.Unit != "nanoseconds" || pp.Period != 1e6 {
		t.Errorf("types %v %v period %d", pp.SampleType, pp.PeriodType, pp.Period)
	}
	if len(pp.Mapping) != 1 || pp.Mapping[0].BuildID != tracefile.BuildIDHex(profiletest.BuildID) ||
		!pp.Mapping[0].HasInlineFrames || pp.Mapping[0].File != sc.Prog.Path {
		t.Errorf("mapping %+v", pp.Mapping)
	}
	stacks := map[string]int64{}
	var cpuNs, cpu1 int64
	inline := false
	for _, s := range pp.Sample {
		var names []string
		for i := len(s.Location) - 1; i >= 0; i-- {
			l := s.Location[i]
			if len(l.Line) > 1 {
				inline = true
			}
			for j := len(l.Line) - 1; j >= 0; j-- {
				names = append(names, l.Line[j].Function.Name)
			}
		}
		stacks[strings.Join(names, ";")] += s.Value[0]
		cpuNs += s.Value[1]
		// The labels have a unit, so that pprof's encoding keeps cpu 0; no string label
		// repeats the tid.
		cpu := s.NumLabel["cpu"]
		if len(cpu) != 1 || len(s.NumUnit["cpu"]) != 1 || s.NumUnit["cpu"][0] != labelUnit || len(s.Label) != 0 ||
			names[len(names)-1] != FrameLost && len(s.NumLabel["tid"]) != 1 {
			t.Fatalf("labels %v %v %v", s.NumLabel, s.NumUnit, s.Label)
		}
		if cpu[0] == 1 {
			cpu1 += s.Value[0]
		}
	}
	if want := withLost(sc.Want, sc.Lost); !maps.Equal(stacks, toInt64(want)) {
		t.Errorf("pprof stacks:\n got %v\nwant %v", stacks, want)
	}
	if !inline {
		t.Error("no Location with inline Lines")
	}
	if cpu1 != profiletest.NLeafCPU1 {
		t.Errorf("%d samples labelled cpu 1, want %d", cpu1, profiletest.NLeafCPU1)
	}
	var wantNs int64
	for _, s := range p.Samples {
		wantNs += s.Period
	}
	if cpuNs != wantNs+int64(sc.Lost)*1e6 {
		t.Errorf("cpu/nanoseconds total %d, want %d", cpuNs, wantNs+int64(sc.Lost)*1e6)
	}
	// The leaf's Location is its exact pc; a caller's is inside the call.
	for _, l := range pp.Location {
		if len(l.Line) > 0 && l.Line[0].Function.Name == "main.mid" && len(l.Line) == 1 {
			if ret := sc.Prog.ReturnAddress("main.mid", "main.leaf"); l.Address != ret-1 && l.Address != sc.Prog.Func("main.mid").Entry &&
				l.Address != sc.Prog.Find("main.mid", "CALL").PC && l.Address != sc.Prog.Find("main.mid", "MOVQ SP, BP").PC {
				t.Errorf("main.mid location at %#x", l.Address)
			}
		}
	}

	// go tool pprof reads it.
	path := filepath.Join(t.TempDir(), "cpu.pb.gz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "tool", "pprof", "-top", path).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof -top: %v\n%s", err, out)
	}
	for _, want := range []string{"main.leaf", "main.asmleaf", FrameLost, "Type: cpu"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("go tool pprof -top output lacks %q:\n%s", want, out)
		}
	}
}

func toInt64(m map[string]int) map[string]int64 {
	out := map[string]int64{}
	for k, v := range m {
		out[k] = int64(v)
	}
	return out
}

func TestFlame(t *testing.T) {
	_, p := scenarioProfile(t, Options{})
	var a, b bytes.Buffer
	if err := WriteFlame(&a, p, FoldOptions{}, "test <graph>"); err != nil {
		t.Fatal(err)
	}
	if err := WriteFlame(&b, p, FoldOptions{}, "test <graph>"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two flame graphs of one profile differ")
	}
	svg := a.String()
	for _, bad := range []string{"<script", "href=", "http://www.w3.org/1999/xlink"} {
		if strings.Contains(svg, bad) {
			t.Errorf("the SVG holds %q", bad)
		}
	}
	// Well-formed XML, with a title on every frame.
	dec := xml.NewDecoder(strings.NewReader(svg))
	titles := map[string]bool{}
	inTitle := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v", err)
		}
		switch v := tok.(type) {
		case xml.StartElement:
			inTitle = v.Name.Local == "title"
		case xml.CharData:
			if inTitle {
				titles[string(v)] = true
			}
		case xml.EndElement:
			inTitle = false
		}
	}
	nLeaf := profiletest.NLeaf + profiletest.NLeafCPU1
	for _, want := range []string{
		fmt.Sprintf("main.leaf (%d samples, %.2f%%)", nLeaf, 100*float64(nLeaf)/float64(len(p.Samples)+p.LostTotal())),
		fmt.Sprintf("all (%d samples, 100.00%%)", len(p.Samples)+p.LostTotal()),
		FrameLost + " (4 samples",
	} {
		found := false
		for k := range titles {
			found = found || strings.HasPrefix(k, want)
		}
		if !found {
			t.Errorf("no <title> %q", want)
		}
	}
	if !strings.Contains(svg, "test &lt;graph&gt;") {
		t.Error("the title is not escaped")
	}
}

func TestAnnotate(t *testing.T) {
	sc, p := scenarioProfile(t, Options{})
	var buf bytes.Buffer
	if err := Annotate(&buf, p, "leaf"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	t.Logf("\n%s", out)
	nLeaf := profiletest.NLeaf + profiletest.NLeafCPU1
	if !strings.HasPrefix(out, TCGWarning) || !strings.Contains(out, "ROUTINE main.leaf") ||
		!strings.Contains(out, fmt.Sprintf("%d samples with an exact pc in this function", nLeaf)) || !strings.Contains(out, "IMULQ") {
		t.Errorf("annotate output:\n%s", out)
	}
	for pc, n := range sc.LeafPCs {
		if !strings.Contains(out, fmt.Sprintf("%7d %7s  %#-12x", n, pct(n, nLeaf), pc)) {
			t.Errorf("no line with %d samples at %#x", n, pc)
		}
	}
	if strings.Contains(out, "INT $0x3") {
		t.Error("alignment padding shown")
	}
	// mid: only the exact pcs count, never the return addresses of the
	// samples below it.
	buf.Reset()
	if err := Annotate(&buf, p, "main.mid"); err != nil {
		t.Fatal(err)
	}
	n := profiletest.NMidLinked + profiletest.NMidEntry + profiletest.NMidPush
	if out := buf.String(); !strings.Contains(out, fmt.Sprintf("%d samples with an exact pc in this function", n)) {
		t.Errorf("annotate main.mid:\n%s", out)
	}
	if err := Annotate(io.Discard, p, "nosuch"); !errors.Is(err, ErrNoFunc) {
		t.Errorf("annotate nosuch: %v", err)
	}
	// No warning under KVM.
	p.Accel = "kvm"
	buf.Reset()
	if err := Annotate(&buf, p, "leaf"); err != nil || strings.Contains(buf.String(), "warning") {
		t.Errorf("kvm: %v\n%s", err, buf.String())
	}
}

func TestAnnotateARM64(t *testing.T) {
	prog := program(t, "arm64")
	im := image(t, prog)
	pc := prog.Func("main.leaf").Entry + 8
	p := &Profile{Image: im, Arch: im.Arch, Accel: "unknown", Deadlines: 1,
		Samples: []Sample{{Stack: []Word{{Addr: pc, Exact: true}}, Thread: -1, Weight: 1, Flags: record.PC0Exact}}}
	var buf bytes.Buffer
	if err := Annotate(&buf, p, "leaf"); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, "TCG") || !strings.Contains(out, fmt.Sprintf("1  100.0%%  %#-12x", pc)) ||
		!strings.Contains(out, "RET") {
		t.Errorf("arm64 annotate:\n%s", out)
	}
}
