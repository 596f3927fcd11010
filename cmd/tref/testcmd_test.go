package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestFindScripts(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.tr", "b.txt", "sub/c.tr", "sub/testdata/skip.tr", ".hidden/skip.tr", "_x/skip.tr", "z.tr"} {
		path := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o644); err != nil {
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
