package eval

import (
	"strings"

	"github.com/tref-lang/tref/lang/ast"
)

// fstring compiles f"text {x} {y:.2f}": each field's value written as
// print writes it, or as the format builtin does with the field's spec,
// between the literal texts.
func (c *compiler) fstring(e *ast.FStringExpr) exprFn {
	type specPart struct {
		text string
		x    exprFn // nil for text
		site *callSite
	}
	type part struct {
		text string
		x    exprFn
		spec Value // a String, or nil for print's form
		// specParts build the spec when it holds fields.
		specParts []specPart
		repr      bool // !r (or !a): the value quoted as in a list
		site      *callSite
	}
	parts := make([]part, len(e.Parts))
	for i, p := range e.Parts {
		parts[i].text = p.Text
		if p.X != nil {
			parts[i].x = c.expr(p.X)
			parts[i].site = newSite(p.X.Span())
			if p.Spec != "" {
				parts[i].spec = String(p.Spec)
			}
			for _, sp := range p.SpecParts {
				q := specPart{text: sp.Text}
				if sp.X != nil {
					q.x, q.site = c.expr(sp.X), newSite(sp.X.Span())
				}
				parts[i].specParts = append(parts[i].specParts, q)
			}
			parts[i].repr = p.Conv == "r" || p.Conv == "a"
		}
	}
	// specOf builds a spec from its texts and fields, each field written
	// as print writes it.
	specOf := func(fr *frame, sps []specPart) (Value, error) {
		var b strings.Builder
		for _, sp := range sps {
			if sp.x == nil {
				b.WriteString(sp.text)
				continue
			}
			v, err := sp.x(fr)
			if err != nil {
				return nil, err
			}
			s, err := fr.formatField(v, nil, sp.site)
			if err != nil {
				return nil, err
			}
			b.WriteString(s)
		}
		return String(b.String()), nil
	}
	return func(fr *frame) (Value, error) {
		var b strings.Builder
		for _, p := range parts {
			if p.x == nil {
				b.WriteString(p.text)
				continue
			}
			v, err := p.x(fr)
			if err != nil {
				return nil, err
			}
			if p.repr {
				r, err := fr.th.Repr(v)
				Release(fr.th.RT, v)
				if err != nil {
					return nil, fr.wrap(p.site.pos, err)
				}
				v = String(r)
			}
			spec := p.spec
			if p.specParts != nil {
				if spec, err = specOf(fr, p.specParts); err != nil {
					Release(fr.th.RT, v)
					return nil, err
				}
			}
			s, err := fr.formatField(v, spec, p.site)
			if err != nil {
				return nil, err
			}
			if err := fr.th.RT.HostPool().CheckValue(int64(b.Len()) + int64(len(s))); err != nil {
				return nil, fr.errorf(p.site.pos, "cannot build the f-string: %v", err)
			}
			b.WriteString(s)
		}
		return String(b.String()), nil
	}
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
