package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteDoc: each architecture's table replaces only the text between its own markers.
func TestWriteDoc(t *testing.T) {
	file := filepath.Join(t.TempDir(), "m.md")
	doc := "a\n<!-- bench: begin -->\nold amd64\n<!-- bench: end -->\nb\n<!-- bench arm64: begin -->\n<!-- bench arm64: end -->\nc\n"
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeDoc(file, "arm64", "new arm64\n"); err != nil {
		t.Fatal(err)
	}
	if err := writeDoc(file, "amd64", "new amd64\n"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(file)
	want := "a\n<!-- bench: begin -->\nnew amd64\n<!-- bench: end -->\nb\n<!-- bench arm64: begin -->\nnew arm64\n<!-- bench arm64: end -->\nc\n"
	if string(got) != want {
		t.Errorf("doc = %q, want %q", got, want)
	}
	if err := writeDoc(file, "riscv64", "x"); err == nil || !strings.Contains(err.Error(), "riscv64") {
		t.Errorf("writeDoc without the markers = %v, want an error naming them", err)
	}
}

// TestTabulateOrder: the workload rows come in the order the guest ran them, the boot rows first.
func TestTabulateOrder(t *testing.T) {
	mk := func(names ...string) result {
		r := result{boot: 1, names: names, values: map[string]float64{}, units: map[string]string{}}
		for _, n := range names {
			r.values[n], r.units[n] = 2, "ns"
		}
		return r
	}
	names := []string{"zeta", "alpha", "mid", "beta"}
	tab := tabulate([][]result{{mk(names...)}, {mk(names...)}, {mk()}}, "q35", true)
	var got []string
	for _, r := range tab.rows[2:] {
		got = append(got, r.name)
	}
	if strings.Join(got, " ") != strings.Join(names, " ") || len(tab.rows) != 6 {
		t.Errorf("rows %q, want the boot rows then %q", got, names)
	}
}
