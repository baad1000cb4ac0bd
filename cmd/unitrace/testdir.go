package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/unitrace/unitrace/internal/image"
	"github.com/unitrace/unitrace/internal/vmconfig"
)

// go test runs a test binary in its package's source directory, so tests find testdata and the
// files beside them by relative paths, and some reach further into the tree (time's tests read
// ../../lib/time/zoneinfo.zip). unitrace test gives the guest the same: the tree the package
// lives in is shared at its own absolute path, and the program starts in the package's
// directory.

// homeDir is the guest's $HOME: go test hands the binary the host's environment, where HOME is
// set, and the guest has no home of its own; /tmp is writable, as a home is.
const homeDir = "/tmp"

// treeShare returns the share of pkg's source tree at the same path in the guest: $GOROOT
// read-only for the standard library, else the module's root read-write (go test's working
// directory is writable).
func treeShare(pkg image.TestPackage) (vmconfig.Share, error) {
	if pkg.Root == "" {
		return vmconfig.Share{}, fmt.Errorf("the go command names no module or GOROOT holding %s", pkg.ImportPath)
	}
	return vmconfig.ParseShare(vmconfig.Share{Host: pkg.Root, Guest: pkg.Root, ReadOnly: pkg.Standard}.String())
}

// packageConfig returns cfg with pkg's source tree shared (after the user's -share
// directories, which must not overlap it), the program started in pkg's directory, and PWD
// and HOME set as go test's environment has them, unless the user's KEY=VALUE words set them.
func packageConfig(cfg vmconfig.Config, pkg image.TestPackage) (vmconfig.Config, error) {
	tree, err := treeShare(pkg)
	if err != nil {
		return cfg, err
	}
	for _, s := range cfg.Shares {
		if s.Overlaps(tree.Guest) {
			return cfg, fmt.Errorf("-share %s overlaps %s, which unitrace test shares at the same path for the tests of %s", s, tree.Guest, pkg.ImportPath)
		}
	}
	cfg.Shares = append(slices.Clone(cfg.Shares), tree)
	if err := vmconfig.CheckShares(cfg.Shares, nil); err != nil {
		return cfg, fmt.Errorf("sharing %s for the tests of %s: %w", tree.Guest, pkg.ImportPath, err)
	}
	env := slices.Clone(cfg.Env)
	has := func(key string) bool {
		return slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, key+"=") })
	}
	if !has("unitrace.cwd") {
		env = append(env, "unitrace.cwd="+pkg.Dir)
		if !has("PWD") {
			env = append(env, "PWD="+pkg.Dir) // as go test sets it: os.Getwd trusts it
		}
	}
	if !has("HOME") {
		env = append(env, "HOME="+homeDir)
	}
	cfg.Env = env
	if _, err := cfg.Cmdline(); err != nil { // the machine must take the share, the command line the words
		return cfg, fmt.Errorf("starting the tests of %s in %s: %w", pkg.ImportPath, pkg.Dir, err)
	}
	return cfg, nil
}
