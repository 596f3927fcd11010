package formats

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unsafe"

	"github.com/tref-lang/tref/runtime/tensor"
)

// MaxCSVBytes bounds the (decompressed) text of a CSV file.
const MaxCSVBytes = 1 << 30

// OpenCSV parses a CSV file of numbers (optionally gzipped) into one
// float32 tensor of shape [rows, cols]. A first row with any non-numeric
// field is a header and is skipped; '#' starts a comment line; blank lines
// are skipped; every data row must have the same number of fields. Unlike
// the binary formats, CSV is parsed at open: its shape is only known once
// every line was read.
func OpenCSV(path string, opts *Options) (*File, error) {
	fh, size, err := openRegular(path, CSV)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var r io.Reader = bufio.NewReaderSize(fh, 64<<10)
	var magic [2]byte
	if n, _ := fh.ReadAt(magic[:], 0); n == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, wrap(path, CSV, "gzip", err)
		}
		defer zr.Close()
		r = zr
	}
	d, err := parseCSV(r, opts)
	if err != nil {
		return nil, wrap(path, CSV, "", err)
	}
	f := newFile(path, CSV, nil)
	f.Entries = []Entry{{Meta: d.Meta, Stored: "text", Bytes: size}}
	f.Entries[0].load = func() (*tensor.Dense, error) {
		if d == nil {
			return nil, errorf(path, CSV, "loaded twice")
		}
		out := d
		d = nil
		return out, nil
	}
	return f, nil
}

// limitedReader fails, rather than stopping quietly, past its limit.
type limitedReader struct {
	r     io.Reader
	left  int64
	limit int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, fmt.Errorf("text exceeds the limit of %d bytes", l.limit)
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// maxCSVValues bounds the values of a CSV file (a tensor of at most
// MaxCSVBytes); a variable so that tests can lower it.
var maxCSVValues = MaxCSVBytes / 4

// maxCSVField bounds one field of a CSV file (a number, or a header's
// name), so that a file without separators cannot make the parser hold
// its whole text.
const maxCSVField = 64 << 10

// Errors of the CSV syntax, worded as encoding/csv words them.
var (
	errCSVQuote     = errors.New(`extraneous or missing " in quoted-field`)
	errCSVBareQuote = errors.New(`bare " in non-quoted-field`)
)

// parseCSV reads the text as it streams: every value is parsed and
// counted as its field ends, so memory grows with the values kept (and is
// checked before it grows), never with the length of a line or the size
// the file claims.
func parseCSV(r io.Reader, opts *Options) (*tensor.Dense, error) {
	limit := int64(MaxCSVBytes)
	if opts != nil && opts.MaxText > 0 {
		limit = opts.MaxText
	}
	p := &csvParser{r: bufio.NewReaderSize(&limitedReader{r: r, left: limit, limit: limit}, 64<<10), line: 1, opts: opts}
	// A UTF-8 byte order mark (spreadsheets write one) is not part of the
	// first field.
	if b, err := p.r.Peek(3); err == nil && string(b) == "\uFEFF" {
		p.r.Discard(3)
	}
	return p.parse()
}

// csvParser is the state of parseCSV.
type csvParser struct {
	r    *bufio.Reader
	opts *Options
	line int // of the next byte
	col  int // 1-based byte column of the next byte

	field []byte // the field being read
	buf   []byte // the values so far, float32 each, 8-byte aligned
	n     int    // values in buf
}

// next returns the next byte, counting lines and columns.
func (p *csvParser) next() (byte, error) {
	c, err := p.r.ReadByte()
	if err != nil {
		return 0, err
	}
	if c == '\n' {
		p.line++
		p.col = 0
	} else {
		p.col++
	}
	return c, nil
}

// peek returns the next byte without taking it; ok is false at the end.
func (p *csvParser) peek() (byte, bool, error) {
	b, err := p.r.Peek(1)
	if errors.Is(err, io.EOF) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	return b[0], true, nil
}

func (p *csvParser) parse() (*tensor.Dense, error) {
	cols, rows := -1, 0
	first, header := true, false
	for {
		c, ok, err := p.peek()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		switch c {
		case '\n', '\r':
			if blank, err := p.blankLine(); err != nil {
				return nil, err
			} else if blank {
				continue
			}
		case '#':
			if err := p.skipLine(); err != nil {
				return nil, err
			}
			continue
		}
		// A record. Its values go after the rows so far; a header's are
		// taken back.
		line, start := p.line, p.n
		keep := cols
		if first {
			keep = -1
		}
		nf, numeric, err := p.record(keep, !first)
		if err != nil {
			return nil, err
		}
		if first {
			first = false
			if !numeric {
				header = true
				p.n = start
				continue
			}
		}
		if cols < 0 {
			cols = nf
		} else if nf != cols {
			return nil, fmt.Errorf("line %d has %d fields, but earlier rows have %d", line, nf, cols)
		}
		rows++
	}
	if cols < 0 {
		if !header {
			return nil, errors.New("no data (the file is empty)")
		}
		return nil, errors.New("no data rows after the header")
	}
	buf := p.buf[:4*p.n]
	if cap(p.buf)-len(buf) > len(buf)/4 {
		buf = append(tensor.AlignedBytes(len(buf))[:0], buf...) // without the growth's slack
	}
	return tensor.Wrap(tensor.Meta{Shape: tensor.Shape{rows, cols}, DType: tensor.Float32}, buf)
}

// blankLine takes a line holding nothing (or a lone carriage return); it
// leaves any other line untouched and reports false.
func (p *csvParser) blankLine() (bool, error) {
	b, _ := p.r.Peek(2)
	switch {
	case len(b) >= 1 && b[0] == '\n':
		p.next()
		return true, nil
	case len(b) == 1 && b[0] == '\r', len(b) == 2 && b[0] == '\r' && b[1] == '\n':
		for range len(b) {
			p.next()
		}
		return true, nil
	}
	return false, nil
}

// skipLine takes the rest of a comment line.
func (p *csvParser) skipLine() error {
	for {
		c, err := p.next()
		if errors.Is(err, io.EOF) || c == '\n' {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// record reads one record, parsing each field as a number as it ends:
// values are kept up to keep fields (all when keep < 0). A field that is
// not a number is an error when strict (a data row), and otherwise makes
// numeric false (a header). It returns the number of fields.
func (p *csvParser) record(keep int, strict bool) (nf int, numeric bool, err error) {
	numeric = true
	for {
		line, col := p.line, p.col+1
		end, err := p.readField()
		if err != nil {
			return 0, false, err
		}
		// The number is parsed from the field's bytes in place:
		// ParseFloat keeps no reference to them.
		v, perr := parseNumber(unsafe.String(unsafe.SliceData(p.field), len(p.field)))
		switch {
		case perr != nil && strict:
			return 0, false, fmt.Errorf("line %d, column %d: %q is not a number", line, col, clip(strings.TrimSpace(string(p.field)), 40))
		case perr != nil:
			numeric = false
		case keep < 0 || nf < keep:
			if err := p.add(v); err != nil {
				return 0, false, err
			}
		}
		nf++
		if end {
			return nf, numeric, nil
		}
	}
}

// readField reads one field into p.field, quoted or not, and the
// separator after it; end reports that the record ended (a newline or the
// end of the text).
func (p *csvParser) readField() (end bool, err error) {
	p.field = p.field[:0]
	line := p.line
	bad := func(e error) error { return fmt.Errorf("line %d: %v", line, e) }
	if c, ok, err := p.peek(); err != nil {
		return false, err
	} else if ok && c == '"' {
		p.next()
		for {
			c, err := p.next()
			if errors.Is(err, io.EOF) {
				return false, bad(errCSVQuote)
			}
			if err != nil {
				return false, err
			}
			if c == '"' {
				d, ok, err := p.peek()
				if err != nil {
					return false, err
				}
				if ok && d == '"' {
					p.next()
				} else {
					break
				}
			}
			if c == '\r' {
				if d, ok, _ := p.peek(); ok && d == '\n' {
					continue // \r\n in a quoted field is \n
				}
			}
			if err := p.grow(c); err != nil {
				return false, bad(err)
			}
		}
		// After the closing quote: a separator, or the end of the record.
		c, err := p.next()
		switch {
		case errors.Is(err, io.EOF), err == nil && c == '\n':
			return true, nil
		case err != nil:
			return false, err
		case c == ',':
			return false, nil
		case c == '\r':
			if d, err := p.next(); errors.Is(err, io.EOF) || d == '\n' {
				return true, nil
			}
		}
		return false, bad(errCSVQuote)
	}
	for {
		// Scan what the reader holds for the field's end, without taking
		// the bytes one call at a time.
		if p.r.Buffered() == 0 {
			if _, err := p.r.Peek(1); err != nil && !errors.Is(err, io.EOF) {
				return false, err
			}
		}
		chunk, _ := p.r.Peek(p.r.Buffered())
		i := 0
		for i < len(chunk) && chunk[i] != ',' && chunk[i] != '\n' && chunk[i] != '"' {
			i++
		}
		if len(p.field)+i > maxCSVField {
			return false, bad(fmt.Errorf("a field longer than %d bytes", maxCSVField))
		}
		p.field = append(p.field, chunk[:i]...)
		if i == len(chunk) {
			p.r.Discard(i)
			p.col += i
			if i > 0 {
				continue // the field goes on past what the reader holds
			}
			// The end of the text ends the record.
			if n := len(p.field); n > 0 && p.field[n-1] == '\r' {
				p.field = p.field[:n-1]
			}
			return true, nil
		}
		// The separator is taken with the field.
		c := chunk[i]
		p.r.Discard(i + 1)
		switch c {
		case '\n':
			p.line++
			p.col = 0
			// encoding/csv drops the carriage return before a newline.
			if n := len(p.field); n > 0 && p.field[n-1] == '\r' {
				p.field = p.field[:n-1]
			}
			return true, nil
		case '"':
			return false, bad(errCSVBareQuote)
		}
		p.col += i + 1
		return false, nil // c is the comma
	}
}

// grow appends c to the field being read, within maxCSVField.
func (p *csvParser) grow(c byte) error {
	if len(p.field) >= maxCSVField {
		return fmt.Errorf("a field longer than %d bytes", maxCSVField)
	}
	p.field = append(p.field, c)
	return nil
}

// add keeps one value, growing the buffer (checked against the value
// limit and the host's memory first) when it is full.
func (p *csvParser) add(v float32) error {
	if 4*(p.n+1) > len(p.buf) {
		if p.n >= maxCSVValues {
			return fmt.Errorf("more than %d values", maxCSVValues)
		}
		n := min(max(2*p.n, 1024), maxCSVValues)
		if err := p.opts.check(int64(4 * n)); err != nil {
			return err
		}
		buf := tensor.AlignedBytes(4 * n)
		copy(buf, p.buf[:4*p.n])
		p.buf = buf
	}
	*(*float32)(unsafe.Pointer(&p.buf[4*p.n])) = v
	p.n++
	return nil
}

func parseNumber(s string) (float32, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 32)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, err
	}
	return float32(v), nil
}
