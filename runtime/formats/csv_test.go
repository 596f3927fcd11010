package formats

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tref-lang/tref/runtime/tensor"
)

// TestCSVSyntax covers what the streaming parser must read as
// encoding/csv did, and the byte order mark that it did not.
func TestCSVSyntax(t *testing.T) {
	cases := []struct {
		name, text string
		shape      tensor.Shape
		vals       []float32
	}{
		{"bom", "\uFEFF1,2\n3,4\n", tensor.Shape{2, 2}, []float32{1, 2, 3, 4}},
		{"bom-header", "\uFEFFa,b\n1,2\n", tensor.Shape{1, 2}, []float32{1, 2}},
		{"quoted", "\"x\",\"y\"\"z\"\n\"1\",\" 2 \"\n", tensor.Shape{1, 2}, []float32{1, 2}},
		{"quoted-newline", "\"a\nb\",c\r\n\"3\",4\r\n", tensor.Shape{1, 2}, []float32{3, 4}},
		{"quoted-crlf-end", "\"5\"\r\n\"6\"", tensor.Shape{2, 1}, []float32{5, 6}},
		{"no-final-newline", "1,2\n3,4", tensor.Shape{2, 2}, []float32{1, 2, 3, 4}},
		{"blank-lines", "\n\r\n1\n\n2\n\r\n", tensor.Shape{2, 1}, []float32{1, 2}},
		{"comments", "# c\n#\n1\n# 2\n3\n", tensor.Shape{2, 1}, []float32{1, 3}},
		{"spaces", " 1 ,\t2\n", tensor.Shape{1, 2}, []float32{1, 2}},
		{"header-wider", "a,b,c\n1,2\n", tensor.Shape{1, 2}, []float32{1, 2}},
	}
	dir := t.TempDir()
	for _, c := range cases {
		p := filepath.Join(dir, c.name+".csv")
		if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, got := loadAll(t, p, nil)
		d := got[0]
		if !d.Shape.Equal(c.shape) {
			t.Errorf("%s: shape %v, want %v", c.name, d.Shape, c.shape)
			continue
		}
		for i, v := range c.vals {
			if d.F32()[i] != v {
				t.Errorf("%s: element %d = %v, want %v", c.name, i, d.F32()[i], v)
			}
		}
	}
}

func TestCSVErrors(t *testing.T) {
	long := strings.Repeat("1", maxCSVField+1)
	cases := []struct{ name, text, want string }{
		{"bare-quote", "1,2\n3,4\"\n", `line 2: bare " in non-quoted-field`},
		{"open-quote", "1,\"2\n", `line 1: extraneous or missing " in quoted-field`},
		{"after-quote", "\"1\"x,2\n", `line 1: extraneous or missing " in quoted-field`},
		{"not-number", "1,2\n3,x\n", `line 2, column 3: "x" is not a number`},
		{"more-fields", "1,2\n3,4,5\n", "line 2 has 3 fields, but earlier rows have 2"},
		{"fewer-fields", "1,2\n\n3\n", "line 3 has 1 fields, but earlier rows have 2"},
		{"long-field", long, "line 1: a field longer than 65536 bytes"},
		{"only-comments", "# x\n\n", "no data (the file is empty)"},
		{"bom-only", "\uFEFF", "no data (the file is empty)"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		p := filepath.Join(dir, c.name+".csv")
		if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(p, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

// TestCSVCountsWhileStreaming: a compressed file of many values fails at
// the value limit, or at the host check, as the values arrive: the
// parser never holds a line, and the values it holds grow only after the
// check allowed them.
func TestCSVCountsWhileStreaming(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "bomb.csv.gz")
	text := []byte(strings.Repeat("0,", 1<<22-1) + "0\n") // one line, 4M values, 8 MB
	if err := os.WriteFile(p, gzipBytes(text), 0o644); err != nil {
		t.Fatal(err)
	}
	old := maxCSVValues
	maxCSVValues = 100_000
	_, err := Open(p, nil)
	maxCSVValues = old
	if err == nil || !strings.Contains(err.Error(), "more than 100000 values") {
		t.Fatalf("value limit: err = %v", err)
	}
	var asked int64
	denied := errors.New("over the host limit")
	check := func(n int64) error {
		asked = max(asked, n)
		if n > 1<<20 {
			return denied
		}
		return nil
	}
	if _, err := Open(p, &Options{Check: check}); !errors.Is(err, denied) || asked > 2<<20 {
		t.Fatalf("host check: err = %v, largest request %d", err, asked)
	}
	// Reading all of it allocates about what the values take (16 MB,
	// in doubling steps), not a copy of the line and its fields.
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f, err := Open(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	defer f.Close()
	if got := f.Entries[0].Meta.Shape; !got.Equal(tensor.Shape{1, 1 << 22}) {
		t.Fatalf("shape %v", got)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 40<<20 {
		t.Errorf("allocated %d MB reading 16 MB of values", alloc>>20)
	}
}
