package stdlib

import (
	"encoding/json"
	"os"
	"strconv"
	"testing"
)

// TestFormatSpec checks format's mini-language against the table that
// testdata/gen_format.py wrote with Python 3.11: every output, and an
// error wherever Python raised one.
func TestFormatSpec(t *testing.T) {
	data, err := os.ReadFile("testdata/format.json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Kind  string          `json:"kind"`
		Value json.RawMessage `json:"value"`
		Spec  string          `json:"spec"`
		Want  *string         `json:"want"`
		Error string          `json:"error"`
	}
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) < 1000 {
		t.Fatalf("only %d rows", len(rows))
	}
	for _, r := range rows {
		var v any
		switch r.Kind {
		case "int":
			n, err := strconv.ParseInt(string(r.Value), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			v = n
		case "float":
			var s string
			if err := json.Unmarshal(r.Value, &s); err != nil {
				t.Fatal(err)
			}
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			v = f
		case "str":
			var s string
			if err := json.Unmarshal(r.Value, &s); err != nil {
				t.Fatal(err)
			}
			v = s
		}
		got, err := formatValue(v, r.Spec)
		switch {
		case r.Want == nil && err == nil:
			t.Errorf("format(%s %s, %q) = %q, want an error (Python: %s)", r.Kind, r.Value, r.Spec, got, r.Error)
		case r.Want != nil && err != nil:
			t.Errorf("format(%s %s, %q): %v, want %q", r.Kind, r.Value, r.Spec, err, *r.Want)
		case r.Want != nil && got != *r.Want:
			t.Errorf("format(%s %s, %q) = %q, want %q", r.Kind, r.Value, r.Spec, got, *r.Want)
		}
	}
}
