package eval

import (
	"strings"

	"github.com/tref-lang/tref/lang/ast"
)

// fstring compiles f"text {x} {y:.2f}": each field's value written as
// print writes it, or as the format builtin does with the field's spec,
// between the literal texts.
func (c *compiler) fstring(e *ast.FStringExpr) exprFn {
	parts := c.fstringParts(e.Parts)
	return func(fr *frame) (Value, error) {
		s, err := fr.fstringText(parts)
		if err != nil {
			return nil, err
		}
		return String(s), nil
	}
}

// fstringPart is a compiled f-string part: a literal text, or a field.
type fstringPart struct {
	text string
	x    exprFn // nil for a text
	spec Value  // a String, or nil for print's form
	// specParts build the spec when it holds fields ({x:{w}.{p}f}).
	specParts []fstringPart
	repr      bool // !r (or !a): the value quoted as in a list
	site      *callSite
}

func (c *compiler) fstringParts(ps []*ast.FStringPart) []fstringPart {
	parts := make([]fstringPart, len(ps))
	for i, p := range ps {
		parts[i].text = p.Text
		if p.X != nil {
			parts[i].x = c.expr(p.X)
			parts[i].site = newSite(p.X.Span())
			if p.Spec != "" {
				parts[i].spec = String(p.Spec)
			}
			if p.SpecParts != nil {
				parts[i].specParts = c.fstringParts(p.SpecParts)
			}
			parts[i].repr = p.Conv == "r" || p.Conv == "a"
		}
	}
	return parts
}

// fstringText writes parts in order: the texts, and each field's value
// after its spec's own fields are written into the spec.
func (fr *frame) fstringText(parts []fstringPart) (string, error) {
	var b strings.Builder
	for _, p := range parts {
		if p.x == nil {
			b.WriteString(p.text)
			continue
		}
		v, err := p.x(fr)
		if err != nil {
			return "", err
		}
		if p.repr {
			r, err := fr.th.Repr(v)
			Release(fr.th.RT, v)
			if err != nil {
				return "", fr.wrap(p.site.pos, err)
			}
			v = String(r)
		}
		spec := p.spec
		if p.specParts != nil {
			text, err := fr.fstringText(p.specParts)
			if err != nil {
				Release(fr.th.RT, v)
				return "", err
			}
			spec = String(text)
		}
		s, err := fr.formatField(v, spec, p.site)
		if err != nil {
			return "", err
		}
		if err := fr.th.RT.HostPool().CheckValue(int64(b.Len()) + int64(len(s))); err != nil {
			return "", fr.errorf(p.site.pos, "cannot build the f-string: %v", err)
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// formatField writes an f-string field's value v, consuming it: as print
// does without a spec, else as format(v, spec).
func (fr *frame) formatField(v, spec Value, site *callSite) (string, error) {
	if spec == nil {
		s, err := fr.th.Format(v)
		Release(fr.th.RT, v)
		if err != nil {
			return "", fr.wrap(site.pos, err)
		}
		return s, nil
	}
	format := fr.th.builtin("format")
	if format == nil {
		Release(fr.th.RT, v)
		return "", fr.errorf(site.pos, "an f-string format spec needs the format builtin")
	}
	out, err := fr.th.callBuiltin(fr, format, []Value{v, spec}, nil, site)
	if err != nil {
		return "", err
	}
	s, ok := out.(String)
	if !ok {
		Release(fr.th.RT, out)
		return "", fr.errorf(site.pos, "format returned %s, not a string", Describe(out))
	}
	return string(s), nil
}
