package main

import (
	"fmt"

	"github.com/unitrace/unitrace/internal/probes"
	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/trace/record"
)

// probeView is a recording's probe hits, named and paired from the image (internal/probes).
type probeView struct {
	im    *probes.Image
	hits  []probes.Hit
	stats []*probes.Stats
	text  map[int]string // by index in the merged records: the hit as a call
}

// hasProbes reports whether the recording has PROBE records.
func hasProbes(tr *tracefile.Trace) bool {
	for i := range tr.Records {
		if tr.Records[i].TPID == record.TPProbe {
			return true
		}
	}
	return false
}

// openProbeView reads the image of the recording (-elf, or the one it names; its build id must
// match unless -force) and analyses the hits among recs, the recording's merged records.
func openProbeView(img imageFlags, tr *tracefile.Trace, recs []tracefile.Rec) (*probeView, error) {
	ti, err := tracefile.OpenFor(img.elf, tr.Host, tr.Hello, img.force)
	if err != nil {
		return nil, err
	}
	im, err := probes.OpenImage(ti.Path)
	if err != nil {
		return nil, fmt.Errorf("reading the image for the probes: %w", err)
	}
	v := &probeView{im: im, text: map[int]string{}}
	v.hits, v.stats = probes.Analyze(recs, im)
	for i := range v.hits {
		v.text[v.hits[i].Index] = im.Format(v.hits, i)
	}
	return v, nil
}

// call is the merged record i's hit as a call, if it is one.
func (v *probeView) call(i int) (string, bool) {
	if v == nil {
		return "", false
	}
	t, ok := v.text[i]
	return t, ok
}
