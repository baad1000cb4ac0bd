package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/unitrace/unitrace/internal/probes"
	"github.com/unitrace/unitrace/probe"
	"github.com/unitrace/unitrace/trace/ctl"
)

// Dynamic probes from the host's side: a spec resolved against the image (internal/probes), then
// the guest's commands: probe.new for a number, probe.site per site, probe.arm. run -probe does
// it over the launcher's own control port before the program starts (the kernel holds it with
// unitrace.hold=1 until resume); unitrace probe does it on a running guest.

// probeReply is a probe command's reply.
type probeReply struct {
	OK     bool          `json:"ok"`
	Error  string        `json:"error"`
	Probe  uint64        `json:"probe"`
	Sites  uint64        `json:"sites"`
	Hits   uint64        `json:"hits"`
	Listed []listedProbe `json:"probe_sites"`
}

type listedProbe struct {
	Probe  uint16 `json:"probe"`
	Return bool   `json:"return"`
	Armed  bool   `json:"armed"`
	PC     uint64 `json:"pc"`
	Hits   uint64 `json:"hits"`
}

// asker sends one command to the guest and returns its reply.
type asker func(c ctl.Command) ([]byte, error)

// askProbe sends c and decodes the reply; a refusal is an error.
func askProbe(ask asker, c ctl.Command) (probeReply, error) {
	b, err := ask(c)
	if err != nil {
		return probeReply{}, err
	}
	var r probeReply
	if err := json.Unmarshal(b, &r); err != nil {
		return probeReply{}, fmt.Errorf("the guest's reply %q: %w", b, err)
	}
	if !r.OK {
		return probeReply{}, errors.New(r.Error)
	}
	return r, nil
}

// probeOptions are what a probe's hits record beyond the registers.
type probeOptions struct {
	probes.Options
	backtrace bool // the stack
}

// checkStringBytes checks a -strings value.
func checkStringBytes(n int) error {
	if n < 0 || n > probe.MaxStringBytes {
		return fmt.Errorf("strings: want 0..%d bytes", probe.MaxStringBytes)
	}
	return nil
}

// addedProbe is what attachProbe did.
type addedProbe struct {
	Number int
	Sites  int
	Funcs  []string
}

// attachProbe resolves spec in im and has the guest arm it: a number, its sites, then the
// breakpoints. Functions of a glob that cannot be probed are reported to warn and left out; a
// spec left with no site is an error, as is any site the guest refuses (the probe is removed).
func attachProbe(ask asker, im *probes.Image, spec probes.Spec, opt probeOptions, warn io.Writer) (addedProbe, error) {
	targets, err := probes.Resolve(im, spec, opt.Options)
	if err != nil {
		return addedProbe{}, err
	}
	var sites []probe.Site
	var added addedProbe
	for _, t := range targets {
		if t.Err != nil {
			if len(targets) == 1 {
				return addedProbe{}, fmt.Errorf("probe %s: %w", spec, t.Err)
			}
			fmt.Fprintf(warn, "probe %s: left out: %v\n", spec, t.Err)
			continue
		}
		sites = append(sites, t.Sites...)
		added.Funcs = append(added.Funcs, t.Func.Name)
	}
	if len(sites) == 0 {
		return addedProbe{}, fmt.Errorf("probe %s: no function it names can be probed", spec)
	}
	r, err := askProbe(ask, ctl.Command{Op: ctl.OpProbeNew})
	if err != nil {
		return addedProbe{}, fmt.Errorf("probe %s: %w", spec, err)
	}
	n := uint8(r.Probe)
	for _, s := range sites {
		c := ctl.Command{Op: ctl.OpProbeSite, Has: ctl.HasProbe | ctl.HasSite, Probe: n}
		c.SiteLen = uint8(s.Put(c.Site[:]))
		if _, err := askProbe(ask, c); err != nil {
			if s.Kind == probe.KindCallEntry {
				// An entry probe has the site: its records pair this probe's returns as well.
				added.Sites--
				continue
			}
			askProbe(ask, ctl.Command{Op: ctl.OpProbeDel, Has: ctl.HasProbe, Probe: n})
			f, _ := im.FuncAt(s.PC)
			return addedProbe{}, fmt.Errorf("probe %s: %s at %#x: %w", spec, f.Name, s.PC, err)
		}
	}
	c := ctl.Command{Op: ctl.OpProbeArm, Has: ctl.HasProbe | ctl.HasStack, Probe: n, Stack: opt.backtrace}
	if _, err := askProbe(ask, c); err != nil {
		askProbe(ask, ctl.Command{Op: ctl.OpProbeDel, Has: ctl.HasProbe, Probe: n})
		return addedProbe{}, fmt.Errorf("probe %s: %w", spec, err)
	}
	added.Number, added.Sites = int(n), added.Sites+len(sites)
	return added, nil
}

// muxAsker asks through the launcher's control-port mux, waiting for the reply.
func muxAsker(m *ctlMux, timeout time.Duration) asker {
	return func(c ctl.Command) ([]byte, error) {
		got := make(chan []byte, 1)
		if err := m.send(c, func(reply []byte) { got <- reply }); err != nil {
			return nil, err
		}
		select {
		case r := <-got:
			return r, nil
		case <-time.After(timeout):
			return nil, fmt.Errorf("no reply from the guest within %v", timeout)
		}
	}
}

// bootProbeTimeout bounds the wait for each reply while the guest boots (TCG, a loaded host).
const bootProbeTimeout = 5 * time.Minute

// attachBootProbes arms run's -probe specs while the kernel holds the program, then lets it go
// (resume), whatever became of them: a refused probe is reported, and the program runs without it.
func attachBootProbes(m *ctlMux, imagePath string, specs []string, opt probeOptions, log io.Writer, tool string) {
	ask := muxAsker(m, bootProbeTimeout)
	defer ask(ctl.Command{Op: ctl.OpResume})
	im, err := probes.OpenImage(imagePath)
	if err != nil {
		fmt.Fprintf(log, "%s: probes: %v\n", tool, err)
		return
	}
	// Entry probes first: a return probe's entry site is left to an entry probe on the same
	// function, whose records pair its returns too.
	specs = slices.Clone(specs)
	slices.SortStableFunc(specs, func(a, b string) int {
		return cmp.Compare(b2i(strings.HasSuffix(a, probes.ReturnSuffix)), b2i(strings.HasSuffix(b, probes.ReturnSuffix)))
	})
	for _, s := range specs {
		spec, _ := probes.ParseSpec(s) // checked with the flags
		p, err := attachProbe(ask, im, spec, opt, prefixWriter{log, tool + ": "})
		if err != nil {
			fmt.Fprintf(log, "%s: %v\n", tool, err)
			continue
		}
		fmt.Fprintf(log, "%s: probe %d: %s: %d sites in %s\n", tool, p.Number, spec, p.Sites, funcList(p.Funcs))
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// funcList names up to three functions.
func funcList(names []string) string {
	if len(names) <= 3 {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:3], ", ") + fmt.Sprintf(" and %d more", len(names)-3)
}

// prefixWriter writes each Write with a prefix (one line per Write).
type prefixWriter struct {
	w      io.Writer
	prefix string
}

func (p prefixWriter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.w, p.prefix+string(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}

// probeFlag collects -probe SPEC words.
type probeFlag []string

func (f *probeFlag) String() string { return strings.Join(*f, ",") }

func (f *probeFlag) Set(s string) error {
	if _, err := probes.ParseSpec(s); err != nil {
		return err
	}
	*f = append(*f, s)
	return nil
}

const probeDoc = `Add, remove or list dynamic probes in a running guest. -ctl is the socket
of "unitrace run -ctl SOCK" (whose recording gets the hits); -elf the image
it runs, where SPEC is resolved.

  add SPEC...   probe each SPEC: a function's full name or a glob over names
                (main.*, net/http.(*conn).serve); NAME%return probes its
                returns. Prints "probe N: SPEC: K sites in FUNCS".
  del N...      remove probe N, printing the hits it counted.
  list          print each probe's sites, one line each: the probe, the
                function, entry or return, armed, hits.

Each hit is a PROBE record in the recording: "unitrace list" prints it with
its arguments or results, "unitrace summary" counts hits and latencies
(docs/tools.md, "unitrace run -probe").
`

var probeCommand = command{
	name:     "probe",
	synopsis: "-ctl SOCK -elf IMAGE [-backtrace] [-strings N] [-timeout D] add SPEC... | del N... | list",
	summary:  "add, remove or list dynamic probes in a running guest (run -ctl SOCK)",
	doc:      probeDoc,
	setup:    probeSetup,
}

func probeSetup(fs *flag.FlagSet) func(std stdio, args []string) error {
	ctlPath := fs.String("ctl", "", "socket of the guest's control port")
	elfPath := fs.String("elf", "", "the image the guest runs")
	backtrace := fs.Bool("backtrace", false, "record the stack with each hit")
	strBytes := fs.Int("strings", 0, fmt.Sprintf("copy up to this many bytes of each string argument (result, at a return) at each hit (0..%d)", probe.MaxStringBytes))
	timeout := fs.Duration("timeout", 30*time.Second, "give up when the guest has not answered a command by then")
	return func(std stdio, args []string) error {
		if err := fs.Parse(args); err != nil {
			return flagError(err)
		}
		if *ctlPath == "" || fs.NArg() == 0 {
			return usageError{"want -ctl SOCK and add SPEC..., del N... or list"}
		}
		if err := checkStringBytes(*strBytes); err != nil {
			return usageError{err.Error()}
		}
		opt := probeOptions{Options: probes.Options{StringBytes: *strBytes}, backtrace: *backtrace}
		ask := func(c ctl.Command) ([]byte, error) { return askGuest(*ctlPath, c, *timeout) }
		verb, rest := fs.Arg(0), fs.Args()[1:]
		switch verb {
		case "add":
			if *elfPath == "" || len(rest) == 0 {
				return usageError{"add wants -elf IMAGE and at least one SPEC"}
			}
			im, err := probes.OpenImage(*elfPath)
			if err != nil {
				return err
			}
			for _, s := range rest {
				spec, err := probes.ParseSpec(s)
				if err != nil {
					return usageError{err.Error()}
				}
				p, err := attachProbe(ask, im, spec, opt, std.err)
				if err != nil {
					return err
				}
				fmt.Fprintf(std.out, "probe %d: %s: %d sites in %s\n", p.Number, spec, p.Sites, funcList(p.Funcs))
			}
			return nil
		case "del":
			if len(rest) == 0 {
				return usageError{"del wants probe numbers"}
			}
			for _, a := range rest {
				n, err := strconv.Atoi(a)
				if err != nil || n < 1 || n > ctl.MaxProbe {
					return usageError{fmt.Sprintf("del %q: want a probe number 1..%d", a, ctl.MaxProbe)}
				}
				r, err := askProbe(ask, ctl.Command{Op: ctl.OpProbeDel, Has: ctl.HasProbe, Probe: uint8(n)})
				if err != nil {
					return fmt.Errorf("probe %d: %w", n, err)
				}
				fmt.Fprintf(std.out, "probe %d: removed after %d hits\n", n, r.Hits)
			}
			return nil
		case "list":
			r, err := askProbe(ask, ctl.Command{Op: ctl.OpProbeList})
			if err != nil {
				return err
			}
			var im *probes.Image
			if *elfPath != "" {
				if im, err = probes.OpenImage(*elfPath); err != nil {
					return err
				}
			}
			for _, s := range r.Listed {
				name := fmt.Sprintf("%#x", s.PC)
				if im != nil {
					if f, ok := im.FuncAt(s.PC); ok {
						name = f.Name
					}
				}
				kind := "entry"
				if s.Return {
					kind = "return"
				}
				fmt.Fprintf(std.out, "probe %d %s %s %#x armed=%v hits=%d\n", s.Probe, name, kind, s.PC, s.Armed, s.Hits)
			}
			return nil
		}
		return usageError{fmt.Sprintf("unknown probe command %q: want add, del or list", verb)}
	}
}
