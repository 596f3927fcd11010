package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestFindScripts(t *testing.T) {
	dir := t.TempDir()
	// Files under a directory count when they have a test block or do
	// not parse; a file named explicitly always counts.
	for f, src := range map[string]string{
		"a.tr": `test "a" { assert true }`, "b.txt": `test "b" { }`,
		"sub/c.tr": "let = 1", "sub/notests.tr": `print("x")`,
		"sub/testdata/skip.tr": "", ".hidden/skip.tr": `test "h" { }`, "_x/skip.tr": `test "x" { }`,
		"z.tr": "let x = 1\ntest \"z\" { assert x == 1 }",
	} {
		path := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := findScripts([]string{dir, filepath.Join(dir, "sub/testdata/skip.tr")})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a.tr", "sub/c.tr", "z.tr", "sub/testdata/skip.tr"}
	for i := range want {
		want[i] = filepath.Join(dir, want[i])
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if _, err := findScripts([]string{filepath.Join(dir, "missing")}); err == nil {
		t.Error("a missing path gave no error")
	}
}
