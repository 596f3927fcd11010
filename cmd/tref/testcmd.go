package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tref-lang/tref/lang/ast"
	"github.com/tref-lang/tref/lang/diag"
	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/lang/parser"
)

// test runs the test blocks of every .tr file under paths, each file in a
// fresh session, and prints one line per test and the closing tally.
func (c *cli) test(cfg *Config, paths []string) int {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	files, err := findScripts(paths)
	if err != nil {
		fmt.Fprintf(c.stderr, "tref test: %v\n", err)
		return 1
	}
	defer exitOnSignal(c.stderr)()
	passed, failed := 0, 0
	for _, file := range files {
		fc := *cfg // each file is confined to its own directory
		if err := fc.confine(file); err != nil {
			return c.fail(err)
		}
		s, err := c.newSession(&fc)
		if err != nil {
			// The device or the --hooks file: not a test's failure,
			// and the same for every file.
			return c.fail(err)
		}
		p, f := c.testFile(s, file)
		passed += p
		failed += f
	}
	fmt.Fprintf(c.stdout, "%d passed, %d failed\n", passed, failed)
	if failed > 0 {
		return 1
	}
	return 0
}

// testFile runs one file's tests in session s and returns how many passed
// and failed. An error outside any test (a syntax error, a failing
// top-level statement) and a failed exit check count as one failure of
// the file.
func (c *cli) testFile(s *session, file string) (passed, failed int) {
	err := s.in.RunTests(file, func(name string, err error) {
		if err == nil {
			fmt.Fprintf(c.stdout, "ok   %s (%s)\n", name, file)
			passed++
			return
		}
		fmt.Fprintf(c.stdout, "FAIL %s (%s): %s\n", name, file, headline(err))
		s.report(err)
		failed++
	})
	if err != nil {
		fmt.Fprintf(c.stdout, "FAIL %s: %s\n", file, headline(err))
		s.report(err)
		failed++
	}
	if !s.finish() {
		fmt.Fprintf(c.stdout, "FAIL %s: exit checks failed\n", file)
		failed++
	}
	if !s.closeDevice() {
		fmt.Fprintf(c.stdout, "FAIL %s: closing the device failed\n", file)
		failed++
	}
	return passed, failed
}

// headline is the first message of err, on one line, for the test report.
func headline(err error) string {
	ds := diag.Diagnostics(err)
	if len(ds) == 0 {
		return err.Error()
	}
	msg, _, _ := strings.Cut(ds[0].Msg, "\n")
	return msg
}

// findScripts expands paths into .tr files: a file is taken as given, a
// directory is walked for *.tr, skipping directories named testdata or
// starting with "." or "_" (as the go command does), and files that hold
// no test block: running their top level (a training script, a model
// run) would test nothing. A file that does not parse is kept, so that
// its error is reported.
func findScripts(paths []string) ([]string, error) {
	var files []string
	for _, root := range paths {
		info, err := os.Stat(root)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			files = append(files, root)
			continue
		}
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if d.IsDir() {
				if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(name, ".tr") {
				return nil
			}
			has, err := hasTests(path)
			if err != nil {
				return err
			}
			if has {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

// hasTests reports whether the script at path has a test block at its top
// level, or does not parse (so that running it reports the error).
func hasTests(path string) (bool, error) {
	src, err := eval.ReadSource(path)
	if err != nil {
		return false, err
	}
	f, err := parser.ParseFile(path, src)
	if err != nil {
		return true, nil
	}
	for _, st := range f.Stmts {
		if _, ok := st.(*ast.TestStmt); ok {
			return true, nil
		}
	}
	return false, nil
}
