package main

import (
	"io"

	"github.com/unitrace/unitrace/internal/profile"
)

// writeRunProfile turns the recording of a run with -sample into the pprof file -pprof names,
// symbolized with the image the run built: what `unitrace pprof -elf IMAGE -o OUT RECORDING`
// does.
func writeRunProfile(std stdio, recording, image, out string) error {
	p, err := loadProfile(std, "run", recording, &profFlags{img: imageFlags{elf: image}, all: true})
	if err != nil {
		return err
	}
	return writeOutput(std, out, func(w io.Writer) error { return profile.WritePProf(w, p) })
}
