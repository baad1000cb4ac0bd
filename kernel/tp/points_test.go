package tp

import (
	"testing"

	"github.com/unitrace/unitrace/trace"
)

// TestPointsWellFormed checks every point against its format: one argument kind per verb, a
// name unique among the kernel's, and the sampler's point outside the list registered by name.
func TestPointsWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range append(Kernel[:], &SamplerTick) {
		if p.Name == "" || seen[p.Name] {
			t.Errorf("point %q: empty or repeated name", p.Name)
		}
		seen[p.Name] = true
		verbs := 0
		for i := 0; i+1 < len(p.Format); i++ {
			if p.Format[i] == '%' {
				verbs++
				i++
			}
		}
		if verbs != int(p.Args.N) || p.Args.N > trace.MaxArgs {
			t.Errorf("point %s: %d verbs in %q, %d argument kinds", p.Name, verbs, p.Format, p.Args.N)
		}
	}
	for _, p := range Kernel {
		if p == &SamplerTick {
			t.Error("SamplerTick is registered by its fixed id, not by name")
		}
	}
}
