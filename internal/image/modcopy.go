package image

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The go command refuses to overlay a file beneath GOMODCACHE, so the tests of a package that
// lives in the module cache (a dependency's, such as golang.org/x/sys/unix) cannot take the
// kernel's file the way a main-module or standard-library package does. Such a package is
// built from a writable copy of its module instead: the copy lies under the main module's
// build/test/mod, and a go.mod of its own (the main module's, with the module replaced by the
// copy) is handed to the go command with -modfile. The package's import path, and so its
// tests, stay the same; its directory, and so the tree the guest shares and starts in, is the
// copy's.

// modCopyDone marks a complete copy: a copy that an interrupted run left half-written lacks it
// and is made again.
const modCopyDone = ".unitrace-copy-complete"

// ModuleCache returns the go command's GOMODCACHE, as the image's build environment sees it.
func ModuleCache(ctx context.Context, dir string, spec Spec) (string, error) {
	var out bytes.Buffer
	if err := goCommand(ctx, BuildConfig{AppDir: dir, Spec: spec, Stderr: io.Discard}, []string{"env", "GOMODCACHE"}, &out); err != nil {
		return "", err
	}
	return strings.TrimSpace(out.String()), nil
}

// inModuleCache reports whether path lies beneath the module cache modCache.
func inModuleCache(path, modCache string) bool {
	if modCache == "" {
		return false
	}
	rel, err := filepath.Rel(modCache, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// ModuleCopy returns pkg as unitrace test builds it: unchanged unless it lives in the module
// cache modCache, in which case its module is copied (once; later calls reuse a complete
// copy) to copyDir/<module>@<version>, and the package that is returned lies in the copy, with
// ModFile naming the go.mod, next to the copy, that replaces the module with it. mainGoMod is
// the main module's go.mod, which that file starts from.
func ModuleCopy(ctx context.Context, spec Spec, pkg TestPackage, modCache, mainGoMod, copyDir string) (TestPackage, error) {
	if !inModuleCache(pkg.Dir, modCache) {
		return pkg, nil
	}
	if pkg.Module == "" || pkg.Version == "" || !inModuleCache(pkg.Root, modCache) {
		return pkg, fmt.Errorf("%s lies in the module cache outside a module version the go command names", pkg.ImportPath)
	}
	rel, err := filepath.Rel(pkg.Root, pkg.Dir)
	if err != nil {
		return pkg, err
	}
	name := strings.ReplaceAll(pkg.Module, "/", "_") + "@" + pkg.Version
	root := filepath.Join(copyDir, name)
	if err := copyModule(pkg.Root, root); err != nil {
		return pkg, fmt.Errorf("copying %s@%s out of the module cache: %w", pkg.Module, pkg.Version, err)
	}
	modFile := root + ".go.mod"
	if err := writeReplacingModFile(ctx, spec, mainGoMod, modFile, pkg.Module, root); err != nil {
		return pkg, err
	}
	pkg.Root, pkg.Dir, pkg.ModFile = root, filepath.Join(root, rel), modFile
	return pkg, nil
}

// copyModule copies the module tree src to dst, writable (the module cache's files are
// read-only, and go test's working directory is writable), unless dst is already a complete
// copy.
func copyModule(src, dst string) error {
	if _, err := os.Stat(filepath.Join(dst, modCopyDone)); err == nil {
		return nil
	}
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			return copyFile(path, target)
		}
		return nil // the module cache holds nothing else; a module zip cannot
	})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dst, modCopyDone), nil, 0o644)
}

// copyFile copies the regular file src to dst, keeping its execute bits and making it
// writable by its owner.
func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	info, err := os.Stat(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, info.Mode().Perm()|0o200)
}

// writeReplacingModFile writes modFile: mainGoMod with module replaced by the directory dir,
// whatever replacement mainGoMod had for it, and beside it the go.sum that -modfile reads
// (modFile's name with .sum for .mod), a copy of the main module's.
func writeReplacingModFile(ctx context.Context, spec Spec, mainGoMod, modFile, module, dir string) error {
	text, err := os.ReadFile(mainGoMod)
	if err != nil {
		return err
	}
	if err := os.WriteFile(modFile, text, 0o644); err != nil {
		return err
	}
	sum, err := os.ReadFile(strings.TrimSuffix(mainGoMod, ".mod") + ".sum")
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := os.WriteFile(strings.TrimSuffix(modFile, ".mod")+".sum", sum, 0o644); err != nil {
		return err
	}
	args := []string{"mod", "edit", "-replace=" + module + "=" + dir, modFile}
	if err := goCommand(ctx, BuildConfig{AppDir: filepath.Dir(mainGoMod), Spec: spec, Stderr: io.Discard}, args, nil); err != nil {
		return fmt.Errorf("replacing %s with its copy: %w", module, err)
	}
	return nil
}
