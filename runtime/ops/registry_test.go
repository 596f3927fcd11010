package ops

import "testing"

func TestHandles(t *testing.T) {
	seen := map[string]bool{}
	for i := 1; i < Count(); i++ {
		op := Op(i)
		d := op.Def()
		if d == nil || d.Name == "" || d.Infer == nil {
			t.Fatalf("op %d has no complete Def", i)
		}
		if seen[d.Name] {
			t.Errorf("two ops named %q", d.Name)
		}
		seen[d.Name] = true
		if got, ok := Lookup(d.Name); !ok || got != op {
			t.Errorf("Lookup(%q) = %d, %v; want %d", d.Name, got, ok, op)
		}
		if op.String() != d.Name {
			t.Errorf("op %d prints as %q, want %q", i, op.String(), d.Name)
		}
	}
	if Matmul.Name() != "matmul" || Add.Def().Inplace == nil || !Reshape.Def().KeepsBytes {
		t.Error("the handles do not name their Defs")
	}
	if _, ok := Lookup("no such op"); ok {
		t.Error("Lookup found an unregistered name")
	}
	var zero Op
	if zero.Def() != nil || zero.Name() != "op#0" {
		t.Errorf("the zero Op is %v, %q", zero.Def(), zero.Name())
	}
}

func TestRegisterRejects(t *testing.T) {
	for _, d := range []*Def{{Name: "add", Infer: inferLogicalNot}, {Name: "", Infer: inferLogicalNot}, {Name: "x_no_infer"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", d.Name)
				}
			}()
			Register(d)
		}()
	}
}
