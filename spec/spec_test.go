// The conformance suite: every spec/*.tr script runs here, chunk by chunk,
// under `go test ./...`. The conventions are documented in spec/README.md
// ("Conformance scripts").
package spec_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/ast"
	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/lang/pos"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/stdlib"
)

// chunk is one independently run part of a script.
type chunk struct {
	start int      // first line, from 1
	src   []byte   // the whole file with the other chunks' lines blanked
	want  []string // expected output lines
	// errLine is the line that must fail (0: none), errRe its message.
	errLine int
	errRe   *regexp.Regexp
}

// parseChunks splits a script at lines consisting of "---" and reads the
// expectations: `### "regexp"` at the end of a line (an error there),
// `## text` at the end of a line and whole lines `#> text` (output).
func parseChunks(t *testing.T, name string, data []byte) []chunk {
	lines := strings.Split(string(data), "\n")
	var chunks []chunk
	begin := 0
	flush := func(end int) {
		c := chunk{start: begin + 1}
		blank := make([]string, len(lines))
		for i := begin; i < end; i++ {
			blank[i] = lines[i]
			line := lines[i]
			trimmed := strings.TrimSpace(line)
			switch {
			case strings.HasPrefix(trimmed, "#>"):
				c.want = append(c.want, strings.TrimPrefix(strings.TrimPrefix(trimmed, "#>"), " "))
			case strings.Contains(line, "### "):
				q := strings.TrimSpace(line[strings.Index(line, "### ")+4:])
				re, err := strconv.Unquote(q)
				if err != nil {
					t.Fatalf("%s:%d: bad error expectation %s: %v", name, i+1, q, err)
				}
				if c.errLine != 0 {
					t.Fatalf("%s:%d: a chunk may expect one failing line (another at %d)", name, i+1, c.errLine)
				}
				c.errLine, c.errRe = i+1, regexp.MustCompile(re)
			case strings.Contains(line, "## "):
				c.want = append(c.want, line[strings.Index(line, "## ")+3:])
			}
		}
		c.src = []byte(strings.Join(blank, "\n"))
		chunks = append(chunks, c)
	}
	for i, l := range lines {
		if strings.TrimSpace(l) == "---" {
			flush(i)
			begin = i + 1
		}
	}
	flush(len(lines))
	return chunks
}

// positioned lists the positions and messages an error carries.
func positioned(err error) []struct {
	pos ast.Pos
	msg string
} {
	type pm = struct {
		pos ast.Pos
		msg string
	}
	var out []pm
	var pl pos.ErrorList
	var ee *eval.Error
	switch {
	case errors.As(err, &pl):
		for _, e := range pl {
			out = append(out, pm{e.Pos, e.Msg})
		}
	case errors.As(err, &ee):
		out = append(out, pm{ee.Pos, ee.Msg})
	}
	return out
}

func TestConformance(t *testing.T) {
	files, err := filepath.Glob("*.tr")
	if err != nil || len(files) == 0 {
		t.Fatalf("no conformance scripts: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range parseChunks(t, file, data) {
			t.Run(strings.TrimSuffix(file, ".tr")+"/line"+strconv.Itoa(c.start), func(t *testing.T) {
				runChunk(t, file, c)
			})
		}
	}
}

func runChunk(t *testing.T, file string, c chunk) {
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 16, TrackRefs: true})
	var out bytes.Buffer
	in := eval.NewInterpreter(eval.Config{RT: rt, Universe: stdlib.Universe(), Stdout: &out})
	err := in.RunSource(file, c.src)
	in.Close()
	if c.errLine == 0 && err != nil {
		t.Errorf("unexpected error:\n%v", err)
	}
	if c.errLine != 0 {
		found := false
		for _, e := range positioned(err) {
			if e.pos.File == file && e.pos.Line == c.errLine && c.errRe.MatchString(e.msg) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s:%d: want an error matching %q there, got:\n%v", file, c.errLine, c.errRe, err)
		}
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if out.Len() == 0 {
		got = nil
	}
	if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
		t.Errorf("output differs\n got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
	}
	if n := rt.LiveRefs(); n != 0 {
		var where []string
		for _, r := range rt.Leaks() {
			where = append(where, r.String()+" from "+r.Site().Pos.String())
		}
		t.Errorf("%d refs alive after the chunk:\n%s", n, strings.Join(where, "\n"))
	}
}
