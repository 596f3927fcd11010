package formats

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMalformed opens and loads every file listed in
// testdata/malformed/errors.txt (written by gen.py there) and checks that
// it fails with an error naming the file and containing the listed text.
func TestMalformed(t *testing.T) {
	fh, err := os.Open("testdata/malformed/errors.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	n := 0
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, want, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("errors.txt: bad line %q", line)
		}
		n++
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata/malformed", name)
			err := openAndLoad(path)
			if err == nil {
				t.Fatalf("loaded without error; want %q", want)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, path+": ") {
				t.Errorf("error does not start with the file name: %s", msg)
			}
			if !strings.Contains(msg, want) {
				t.Errorf("error %q\ndoes not contain %q", msg, want)
			}
		})
	}
	if n < 50 {
		t.Fatalf("only %d cases in errors.txt", n)
	}
}

func openAndLoad(path string) error {
	f, err := Open(path, nil)
	if err != nil {
		return err
	}
	defer f.Close()
	for i := range f.Entries {
		if _, err := f.Entries[i].Load(); err != nil {
			return err
		}
	}
	return nil
}
