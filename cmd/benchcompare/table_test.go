package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// TestParse: the boot marker's first line, bench lines, and nothing from other lines.
func TestParse(t *testing.T) {
	var r result
	r.values, r.units = map[string]float64{}, map[string]string{}
	for _, line := range []string{"[ 0.1] kernel noise", "boot_ns 123", "boot_ns 456", "bench compute 2281.5 ns/kiter"} {
		if err := r.parse(line, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if r.boot != time.Second || r.values["compute"] != 2281.5 || r.units["compute"] != "ns/kiter" || len(r.values) != 1 {
		t.Errorf("parsed %+v", r)
	}
	if err := r.parse("bench compute -1 ns", 0); err == nil {
		t.Error("a negative value parsed")
	}
}
