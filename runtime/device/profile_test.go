package device

import (
	"strings"
	"testing"
)

// TestProfiles checks that every card has every figure, a source, a
// unique name, and a cost model that validates with the card's rates.
func TestProfiles(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Profiles {
		if p.Name == "" || p.Title == "" || strings.ToLower(p.Name) != p.Name {
			t.Errorf("profile %+v: want a lower-case name and a title", p)
		}
		if seen[p.Name] {
			t.Errorf("profile %q twice", p.Name)
		}
		seen[p.Name] = true
		if !(p.Memory > 0 && p.PCIe > 0 && p.Flops > 0 && p.MemBandwidth > 0) {
			t.Errorf("profile %q: every figure must be positive: %+v", p.Name, p)
		}
		if len(p.Source) < 10 {
			t.Errorf("profile %q: no source cited", p.Name)
		}
		c := p.Cost()
		if err := c.Validate(); err != nil {
			t.Errorf("profile %q: %v", p.Name, err)
		}
		if c.H2D != p.PCIe || c.D2H != p.PCIe || c.Flops != p.Flops || c.MemBandwidth != p.MemBandwidth {
			t.Errorf("profile %q: cost %+v does not carry the card's rates", p.Name, c)
		}
	}
	for _, gb := range []int64{8, 12, 16, 24, 40, 80} {
		found := false
		for _, p := range Profiles {
			found = found || p.Memory == gb<<30
		}
		if !found {
			t.Errorf("no %d GB card", gb)
		}
	}
}

func TestLookupProfile(t *testing.T) {
	p, err := LookupProfile("RTX4090")
	if err != nil || p.Name != "rtx4090" || p.Memory != 24<<30 {
		t.Fatalf("LookupProfile(RTX4090) = %+v, %v", p, err)
	}
	_, err = LookupProfile("gtx480")
	if err == nil || !strings.Contains(err.Error(), `unknown GPU "gtx480"`) || !strings.Contains(err.Error(), "h100") {
		t.Fatalf("LookupProfile(gtx480) error = %v; want the known names", err)
	}
}
