package formats

import (
	"bufio"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

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

func parseCSV(r io.Reader, opts *Options) (*tensor.Dense, error) {
	limit := int64(MaxCSVBytes)
	if opts != nil && opts.MaxText > 0 {
		limit = opts.MaxText
	}
	cr := csv.NewReader(&limitedReader{r: r, left: limit, limit: limit})
	cr.FieldsPerRecord = -1 // checked here, with a clearer message
	cr.Comment = '#'
	cr.ReuseRecord = true
	var vals []float32
	cols, rows := -1, 0
	first := true
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("line %d: %v", pe.StartLine, pe.Err)
			}
			return nil, err
		}
		line, _ := cr.FieldPos(0)
		if first {
			first = false
			if !allNumeric(rec) {
				continue // header row
			}
		}
		if cols < 0 {
			cols = len(rec)
		} else if len(rec) != cols {
			return nil, fmt.Errorf("line %d has %d fields, but earlier rows have %d", line, len(rec), cols)
		}
		if int64(len(vals)+cols)*4 > MaxCSVBytes {
			return nil, fmt.Errorf("more than %d values", MaxCSVBytes/4)
		}
		if len(vals)+cols > cap(vals) {
			if err := opts.check(int64(2*cap(vals)+cols) * 4); err != nil {
				return nil, err
			}
		}
		for i, s := range rec {
			v, err := parseNumber(s)
			if err != nil {
				_, col := cr.FieldPos(i)
				return nil, fmt.Errorf("line %d, column %d: %q is not a number", line, col, clip(strings.TrimSpace(s), 40))
			}
			vals = append(vals, v)
		}
		rows++
	}
	if cols < 0 {
		if first {
			return nil, errors.New("no data (the file is empty)")
		}
		return nil, errors.New("no data rows after the header")
	}
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{rows, cols}, DType: tensor.Float32})
	copy(d.F32(), vals)
	return d, nil
}

func parseNumber(s string) (float32, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 32)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, err
	}
	return float32(v), nil
}

func allNumeric(rec []string) bool {
	for _, s := range rec {
		if _, err := parseNumber(s); err != nil {
			return false
		}
	}
	return true
}
