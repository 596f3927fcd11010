package tensor

import (
	"strings"
	"testing"
)

func TestCheckedNumel(t *testing.T) {
	ok := []struct {
		s Shape
		n int
	}{
		{Shape{}, 1},
		{Shape{0}, 0},
		{Shape{3, 0, 5}, 0},
		{Shape{0, 1 << 20, 1 << 20}, 0}, // nonzero dims multiply to exactly MaxElements
		{Shape{1 << 20, 1 << 20}, MaxElements},
	}
	for _, c := range ok {
		if n, err := CheckedNumel(c.s); err != nil || n != c.n {
			t.Errorf("CheckedNumel(%v) = %d, %v; want %d", c.s, n, err, c.n)
		}
	}
	bad := []struct {
		s    Shape
		want string
	}{
		{Shape{2, -1}, "negative dimension -1"},
		{Shape{1 << 20, 1<<20 + 1}, "has more than 1099511627776 elements"},
		// Whether the zero comes first or last, the shape is refused the
		// same way (transpose used to refuse what load had accepted).
		{Shape{0, 1 << 62, 1 << 62}, "its nonzero dimensions multiply to more than"},
		{Shape{1 << 62, 0, 1 << 62}, "its nonzero dimensions multiply to more than"},
		{Shape{1 << 62, 1 << 62, 0}, "its nonzero dimensions multiply to more than"},
	}
	for _, c := range bad {
		if _, err := CheckedNumel(c.s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckedNumel(%v): err = %v, want %q", c.s, err, c.want)
		}
	}
}
