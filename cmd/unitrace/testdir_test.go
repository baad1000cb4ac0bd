package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/internal/image"
	"github.com/unitrace/unitrace/internal/vmconfig"
)

// TestPackageConfig: a module's package gets its module shared read-write, a standard library
// package $GOROOT read-only, both at their host paths, and the words that start it in its
// directory with PWD and HOME; the user's words win.
func TestPackageConfig(t *testing.T) {
	mod := image.TestPackage{ImportPath: "example.com/m/a", Dir: "/src/m/a", Root: "/src/m"}
	std := image.TestPackage{ImportPath: "os", Dir: "/goroot/src/os", Root: "/goroot", Standard: true}
	for _, tt := range []struct {
		pkg       image.TestPackage
		env, want []string
		share     vmconfig.Share
	}{
		{mod, nil, []string{"unitrace.cwd=/src/m/a", "PWD=/src/m/a", "HOME=/tmp"}, vmconfig.Share{Host: "/src/m", Guest: "/src/m"}},
		{std, []string{"A=1"}, []string{"A=1", "unitrace.cwd=/goroot/src/os", "PWD=/goroot/src/os", "HOME=/tmp"},
			vmconfig.Share{Host: "/goroot", Guest: "/goroot", ReadOnly: true}},
		{mod, []string{"HOME=/h", "PWD=/p"}, []string{"HOME=/h", "PWD=/p", "unitrace.cwd=/src/m/a"}, vmconfig.Share{Host: "/src/m", Guest: "/src/m"}},
		{mod, []string{"unitrace.cwd=/tmp"}, []string{"unitrace.cwd=/tmp", "HOME=/tmp"}, vmconfig.Share{Host: "/src/m", Guest: "/src/m"}},
	} {
		user := vmconfig.Share{Host: "/data", Guest: "/data", ReadOnly: true}
		in := vmconfig.Config{Kernel: "k.elf", Env: tt.env, Shares: []vmconfig.Share{user}}
		cfg, err := packageConfig(in, tt.pkg)
		if err != nil {
			t.Errorf("%s %q: %v", tt.pkg.ImportPath, tt.env, err)
			continue
		}
		if !slices.Equal(cfg.Env, tt.want) {
			t.Errorf("%s %q: env %q, want %q", tt.pkg.ImportPath, tt.env, cfg.Env, tt.want)
		}
		if !slices.Equal(cfg.Shares, []vmconfig.Share{user, tt.share}) {
			t.Errorf("%s: shares %v, want %v then %v", tt.pkg.ImportPath, cfg.Shares, user, tt.share)
		}
		if !slices.Equal(in.Env, tt.env) || len(in.Shares) != 1 {
			t.Errorf("%s: the caller's config changed: %+v", tt.pkg.ImportPath, in)
		}
	}
}

// TestPackageConfigRefuses: a -share at, inside or around the package's tree, one share too
// many, a machine without virtio-mmio and a package without a tree are errors that say why.
func TestPackageConfigRefuses(t *testing.T) {
	pkg := image.TestPackage{ImportPath: "example.com/m/a", Dir: "/src/m/a", Root: "/src/m"}
	many := make([]vmconfig.Share, vmconfig.MaxShares)
	for i := range many {
		many[i] = vmconfig.Share{Host: "/h", Guest: "/d" + strings.Repeat("x", i)}
	}
	for _, tt := range []struct {
		cfg  vmconfig.Config
		pkg  image.TestPackage
		want string
	}{
		{vmconfig.Config{Shares: []vmconfig.Share{{Host: "/x", Guest: "/src/m"}}}, pkg, "overlaps /src/m"},
		{vmconfig.Config{Shares: []vmconfig.Share{{Host: "/x", Guest: "/src/m/a/testdata"}}}, pkg, "overlaps /src/m"},
		{vmconfig.Config{Shares: []vmconfig.Share{{Host: "/x", Guest: "/src"}}}, pkg, "overlaps /src/m"},
		{vmconfig.Config{Shares: many}, pkg, "at most"},
		{vmconfig.Config{Kernel: "k.elf", Machine: "q35"}, pkg, "virtio-mmio"},
		{vmconfig.Config{}, image.TestPackage{ImportPath: "x"}, "no module or GOROOT"},
	} {
		_, err := packageConfig(tt.cfg, tt.pkg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want one containing %q", tt.cfg, err, tt.want)
		}
	}
	// /src/mx is beside /src/m, not inside it.
	if _, err := packageConfig(vmconfig.Config{Kernel: "k.elf", Shares: []vmconfig.Share{{Host: "/x", Guest: "/src/mx"}}}, pkg); err != nil {
		t.Errorf("/src/mx beside /src/m: %v", err)
	}
}
