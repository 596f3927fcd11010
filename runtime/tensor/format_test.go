package tensor

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// format.json holds str(tensor) from PyTorch for each case (see
// testdata/gen_format.py), adjusted for tref's true/false and dtype names.
type formatCase struct {
	Name  string            `json:"name"`
	DType string            `json:"dtype"`
	Shape []int             `json:"shape"`
	Data  []json.RawMessage `json:"data"`
	Text  string            `json:"text"`
}

func TestFormatMatchesTorch(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "format.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []formatCase `json:"cases"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) == 0 {
		t.Fatal("no cases in format.json")
	}
	for _, c := range file.Cases {
		t.Run(c.Name, func(t *testing.T) {
			d := c.dense(t)
			if got := Format(d); got != c.Text {
				t.Errorf("got:\n%s\nwant:\n%s", got, c.Text)
			}
		})
	}
}

func (c formatCase) dense(t *testing.T) *Dense {
	dt, ok := ParseDType(c.DType)
	if !ok {
		t.Fatalf("unknown dtype %q", c.DType)
	}
	shape := Shape(c.Shape)
	if shape == nil {
		shape = Shape{}
	}
	d := NewDense(Meta{Shape: shape, DType: dt})
	if len(c.Data) != d.Numel() {
		t.Fatalf("%d values for shape %v", len(c.Data), shape)
	}
	for i, r := range c.Data {
		switch s := strings.Trim(string(r), `"`); {
		case dt == Int64:
			if err := json.Unmarshal(r, &d.I64()[i]); err != nil {
				t.Fatal(err)
			}
		case s == "true" || s == "false":
			d.Set(i, map[bool]float64{true: 1}[s == "true"])
		case s == "nan":
			d.Set(i, math.NaN())
		case s == "inf":
			d.Set(i, math.Inf(1))
		case s == "-inf":
			d.Set(i, math.Inf(-1))
		default:
			var v float64
			if err := json.Unmarshal(r, &v); err != nil {
				t.Fatal(err)
			}
			d.Set(i, v)
		}
	}
	return d
}

func TestFormatScalarAndBoolWidths(t *testing.T) {
	d := NewDense(Meta{Shape: Shape{3}, DType: Bool})
	d.Buf[0] = 1
	if got, want := Format(d), "tensor([ true, false, false])"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	s := NewDense(Meta{DType: Float32})
	s.F32()[0] = 0.1
	if got, want := Format(s), "tensor(0.1000)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
