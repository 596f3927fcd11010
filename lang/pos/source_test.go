package pos

import "testing"

func TestLineEndings(t *testing.T) {
	for _, src := range []string{"a\nbb\n\nc", "a\r\nbb\r\n\r\nc", "a\rbb\r\rc", "a\r\nbb\r\nc"} {
		want := []string{"a", "bb", "", "c"}
		if src == "a\r\nbb\r\nc" {
			want = []string{"a", "bb", "c"}
		}
		for i, w := range want {
			if got, ok := Line([]byte(src), i+1); !ok || got != w {
				t.Errorf("Line(%q, %d) = %q, %v, want %q", src, i+1, got, ok, w)
			}
		}
		if _, ok := Line([]byte(src), len(want)+1); ok {
			t.Errorf("Line(%q, %d) exists", src, len(want)+1)
		}
	}
	if got, ok := Line([]byte("x\n"), 2); !ok || got != "" {
		t.Errorf("the line after a final newline: %q, %v", got, ok)
	}
}

func TestEndings(t *testing.T) {
	for src, want := range map[string]int{"": 0, "a": 0, "a\n": 1, "a\r\nb\r\n": 2, "a\rb\r": 2, "\r\r\n\n": 3} {
		if got := Endings([]byte(src)); got != want {
			t.Errorf("Endings(%q) = %d, want %d", src, got, want)
		}
	}
}
