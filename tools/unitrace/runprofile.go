package main

import (
	"fmt"
	"os"

	"github.com/unitrace/unitrace/tools/profile"
	"github.com/unitrace/unitrace/tools/tracefile"
)

// writeRunProfile turns the recording of a run with -sample into the pprof file -pprof names,
// symbolized with the image the run built.
func writeRunProfile(recording, image, out string) error {
	tr, err := tracefile.LoadFile(recording)
	if err != nil {
		return err
	}
	im, err := profile.OpenFor(image, tr, false)
	if err != nil {
		return err
	}
	p, err := profile.Build(tr, im, profile.Options{})
	if err != nil {
		return fmt.Errorf("%s: %w", recording, err)
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := profile.WritePProf(f, p); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
