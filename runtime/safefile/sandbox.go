package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Sandbox is a directory tree that file access is confined to (tref's
// --sandbox: the script's directory). A nil *Sandbox allows every path.
type Sandbox struct {
	root string // absolute, symbolic links resolved
}

// NewSandbox confines file access to the tree under dir.
func NewSandbox(dir string) (*Sandbox, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, err
	}
	return &Sandbox{root: real}, nil
}

// Root is the sandbox's directory (absolute, links resolved); "" for a nil
// Sandbox.
func (s *Sandbox) Root() string {
	if s == nil {
		return ""
	}
	return s.root
}

// Check refuses a path that leads outside the sandbox: after making it
// absolute and resolving every symbolic link in it, it must lie in the
// sandbox's tree, so neither ".." nor a link escapes. A path that does
// not exist yet (a file about to be saved) is judged by its directory,
// which must exist, and its name. A nil Sandbox allows every path.
func (s *Sandbox) Check(path string) error {
	if s == nil {
		return nil
	}
	real, err := resolve(path, 0)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(s.root, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return &Error{Path: path, Msg: "outside the sandbox " + s.root + " (--sandbox allows the script's directory tree only)"}
	}
	return nil
}

// resolve makes path absolute with its symbolic links resolved; when the
// last element does not exist (not even as a dangling link), its
// directory is resolved instead. links counts the dangling links followed.
func resolve(path string, links int) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err == nil {
		return real, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if _, lerr := os.Lstat(abs); lerr == nil {
		// A dangling link: where it points decides (a write through it
		// creates that file).
		target, err := followLink(abs, links)
		if err != nil {
			return "", err
		}
		return resolve(target, links+1)
	}
	return resolveMissing(abs)
}

// resolveMissing resolves the directory of a path whose last element does
// not exist.
func resolveMissing(abs string) (string, error) {
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.Base(abs)), nil
}
