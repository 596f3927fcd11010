package tensor

import (
	"math"
	"strconv"
	"strings"
)

// Printing follows torch/_tensor_str.py (PyTorch 1.13) with its default
// print options, so a tensor prints as it would in Python:
//
//	tensor([[1., 2.],
//	        [3., 4.]])
//
// Floats whose nonzero finite values are all integral print as "1."; others
// with 4 decimals ("0.1000"); scientific notation ("1.0000e-05") when the
// largest/smallest magnitude ratio exceeds 1000, the largest exceeds 1e8 or
// (non-integral) the smallest is below 1e-4. Columns are right-aligned to
// the widest value, rows wrap at 80 characters, and tensors of more than
// 1000 elements are summarised with "..." keeping 3 items at each edge of
// every dimension. The one deliberate difference: bools print as tref's
// literals true/false instead of Python's True/False. dtype= is shown for
// dtypes other than float32, int64 and bool, without torch's "torch."
// prefix ("dtype=float64"); empty tensors also show size= unless 1-d.

const (
	fmtPrecision = 4
	fmtThreshold = 1000
	fmtEdgeItems = 3
	fmtLineWidth = 80
)

// Format renders d as PyTorch prints a tensor. A 0-d tensor gives
// "tensor(3.5000)"; scripts print scalars themselves, as Python numbers.
func Format(d *Dense) string {
	const prefix = "tensor("
	indent := len(prefix)
	var suffixes []string
	var body string
	if d.Numel() == 0 {
		if len(d.Shape) != 1 {
			suffixes = append(suffixes, "size="+pythonTuple(d.Shape))
		}
		if d.DType != Float32 {
			suffixes = append(suffixes, "dtype="+d.DType.String())
		}
		body = "[]"
	} else {
		if d.DType != Float32 && d.DType != Int64 && d.DType != Bool {
			suffixes = append(suffixes, "dtype="+d.DType.String())
		}
		summarize := d.Numel() > fmtThreshold
		p := &printer{d: d, summarize: summarize}
		var sample []int
		if summarize {
			p.summarized(0, d.Shape, &sample)
		} else {
			sample = make([]int, d.Numel())
			for i := range sample {
				sample[i] = i
			}
		}
		p.f = newElemFormatter(d, sample)
		var b strings.Builder
		p.write(&b, 0, d.Shape, indent)
		body = b.String()
	}
	return addSuffixes(prefix+body, suffixes, indent)
}

// pythonTuple writes a shape as Python prints a tuple: (0, 3), (0,).
func pythonTuple(s Shape) string {
	parts := make([]string, len(s))
	for i, n := range s {
		parts[i] = strconv.Itoa(n)
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// addSuffixes closes the text with ", dtype=..." suffixes, wrapping to a
// new line when the last line would pass the line width.
func addSuffixes(s string, suffixes []string, indent int) string {
	var b strings.Builder
	b.WriteString(s)
	lastLine := len(s) - strings.LastIndexByte(s, '\n') + 1
	for _, suf := range suffixes {
		if lastLine+len(suf)+2 > fmtLineWidth {
			b.WriteString(",\n" + strings.Repeat(" ", indent) + suf)
			lastLine = indent + len(suf)
		} else {
			b.WriteString(", " + suf)
			lastLine += len(suf) + 2
		}
	}
	b.WriteByte(')')
	return b.String()
}

// elemFormatter is torch's _Formatter: one element style for the whole
// tensor, chosen from its (summarised) values.
type elemFormatter struct {
	d       *Dense
	dtype   DType
	intMode bool
	sciMode bool
	width   int
}

// newElemFormatter chooses the style from the elements at the flat
// indices sample.
func newElemFormatter(d *Dense, sample []int) *elemFormatter {
	f := &elemFormatter{d: d, dtype: d.DType, intMode: true, width: 1}
	if !d.DType.IsFloat() {
		for _, i := range sample {
			f.width = max(f.width, len(f.plain(i)))
		}
		return f
	}
	vals := make([]float64, len(sample))
	for k, i := range sample {
		vals[k] = d.At(i)
	}
	lo, hi := math.Inf(1), 0.0
	n := 0
	for _, v := range vals {
		if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		n++
		a := math.Abs(v)
		lo, hi = min(lo, a), max(hi, a)
		if v != math.Ceil(v) {
			f.intMode = false
		}
	}
	if n == 0 {
		return f
	}
	if f.intMode {
		f.sciMode = hi/lo > 1000 || hi > 1e8
	} else {
		f.sciMode = hi/lo > 1000 || hi > 1e8 || lo < 1e-4
	}
	for _, v := range vals {
		if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		switch {
		case f.sciMode:
			f.width = max(f.width, len(strconv.FormatFloat(v, 'e', fmtPrecision, 64)))
		case f.intMode:
			f.width = max(f.width, len(strconv.FormatFloat(v, 'f', 0, 64))+1)
		default:
			f.width = max(f.width, len(strconv.FormatFloat(v, 'f', fmtPrecision, 64)))
		}
	}
	return f
}

// plain is the text of element i before padding.
func (f *elemFormatter) plain(i int) string {
	switch f.dtype {
	case Bool:
		if f.d.Buf[i] != 0 {
			return "true"
		}
		return "false"
	case Int64:
		return strconv.FormatInt(f.d.I64()[i], 10)
	case Uint8:
		return strconv.Itoa(int(f.d.Buf[i]))
	case Uint64:
		return strconv.FormatUint(f.d.U64()[i], 10)
	case Int8, Int16, Int32, Uint16, Uint32:
		return strconv.FormatInt(f.d.IntAt(i), 10)
	}
	v := f.d.At(i)
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case f.sciMode:
		return strconv.FormatFloat(v, 'e', fmtPrecision, 64)
	case f.intMode:
		return strconv.FormatFloat(v, 'f', 0, 64) + "."
	}
	return strconv.FormatFloat(v, 'f', fmtPrecision, 64)
}

// format pads element i's text to the common width.
func (f *elemFormatter) format(i int) string {
	s := f.plain(i)
	if pad := f.width - len(s); pad > 0 {
		return strings.Repeat(" ", pad) + s
	}
	return s
}

// printer writes the nested brackets of a tensor.
type printer struct {
	d         *Dense
	f         *elemFormatter
	summarize bool
}

// edges lists the indices of a dimension of size n that are printed: all
// of them, or the edge items around a gap marked -1.
func (p *printer) edges(n int) []int {
	if !p.summarize || n <= 2*fmtEdgeItems {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	idx := make([]int, 0, 2*fmtEdgeItems+1)
	for i := range fmtEdgeItems {
		idx = append(idx, i)
	}
	idx = append(idx, -1)
	for i := n - fmtEdgeItems; i < n; i++ {
		idx = append(idx, i)
	}
	return idx
}

// summarized collects the flat indices of the elements that summarised
// printing shows, which alone decide the element format (torch's get_summarized_data).
func (p *printer) summarized(off int, shape Shape, out *[]int) {
	if len(shape) == 0 {
		*out = append(*out, off)
		return
	}
	inner := shape[1:].Numel()
	for _, i := range p.edges(shape[0]) {
		if i >= 0 {
			p.summarized(off+i*inner, shape[1:], out)
		}
	}
}

// write prints the sub-tensor at flat offset off with the given shape,
// whose opening bracket sits at column indent.
func (p *printer) write(b *strings.Builder, off int, shape Shape, indent int) {
	switch len(shape) {
	case 0:
		b.WriteString(p.f.format(off))
		return
	case 1:
		p.writeVector(b, off, shape[0], indent)
		return
	}
	inner := shape[1:].Numel()
	sep := "," + strings.Repeat("\n", len(shape)-1) + strings.Repeat(" ", indent+1)
	b.WriteByte('[')
	for k, i := range p.edges(shape[0]) {
		if k > 0 {
			b.WriteString(sep)
		}
		if i < 0 {
			b.WriteString("...")
			continue
		}
		p.write(b, off+i*inner, shape[1:], indent+1)
	}
	b.WriteByte(']')
}

func (p *printer) writeVector(b *strings.Builder, off, n, indent int) {
	perLine := max(1, (fmtLineWidth-indent)/(p.f.width+2))
	b.WriteByte('[')
	for k, i := range p.edges(n) {
		if k > 0 {
			if k%perLine == 0 {
				b.WriteString(",\n" + strings.Repeat(" ", indent+1))
			} else {
				b.WriteString(", ")
			}
		}
		if i < 0 {
			b.WriteString(" ...")
			continue
		}
		b.WriteString(p.f.format(off + i))
	}
	b.WriteByte(']')
}
