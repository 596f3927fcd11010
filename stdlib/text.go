package stdlib

import (
	"fmt"
	"os"
	"strings"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/safefile"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Text as bytes, for character-level models: read_bytes reads a file's
// bytes into a uint8 tensor, encode and decode convert between strings
// and their UTF-8 bytes.
func init() {
	register("read_bytes", "read_bytes(path): the bytes of a file as a 1-d uint8 tensor (a text file's characters for a character-level model). A relative path is resolved against the calling script's directory", builtinReadBytes)
	register("encode", "encode(s): the UTF-8 bytes of a string as a 1-d uint8 tensor (Python's s.encode())", builtinEncode)
	register("decode", "decode(x): the string whose UTF-8 bytes are the elements of an integer tensor (each 0..255, in row-major order); bytes that are not valid UTF-8 become U+FFFD (Python's bytes(x).decode(errors=\"replace\"))", builtinDecode)
}

func builtinReadBytes(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var path string
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "path", &path); err != nil {
		return nil, err
	}
	full := scriptPath(th, path)
	if err := th.Sandbox.Check(full); err != nil {
		return nil, fmt.Errorf("read_bytes: %w", err)
	}
	st, err := os.Stat(full)
	if err != nil {
		return nil, fmt.Errorf("read_bytes: %w", err)
	}
	if err := th.RT.HostPool().Check(st.Size()); err != nil {
		return nil, fmt.Errorf("read_bytes: %s: %w", full, err)
	}
	// ReadFile refuses anything that is not a regular file and reads no
	// more than the size checked.
	buf, err := safefile.ReadFile(full, st.Size())
	if err != nil {
		return nil, fmt.Errorf("read_bytes: %w", err)
	}
	return bytesTensor(th, buf)
}

func builtinEncode(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var s string
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "s", &s); err != nil {
		return nil, err
	}
	if err := th.RT.HostPool().Check(int64(len(s))); err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	return bytesTensor(th, []byte(s))
}

// bytesTensor wraps buf as a uint8 tensor [len(buf)]; buf is not copied.
func bytesTensor(th *eval.Thread, buf []byte) (eval.Value, error) {
	d, err := tensor.Wrap(tensor.Meta{Shape: tensor.Shape{len(buf)}, DType: tensor.Uint8}, buf)
	if err != nil {
		return nil, err
	}
	return eval.Tensor{Ref: th.RT.FromHost(th.Site(), d)}, nil
}

func builtinDecode(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x", &x); err != nil {
		return nil, err
	}
	dt := x.DType()
	if dt.IsFloat() || dt == tensor.Bool {
		return nil, fmt.Errorf("decode: x must be an integer tensor of bytes, not %s", dt)
	}
	n := x.Shape().Numel()
	if err := th.RT.HostPool().CheckValue(int64(n)); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	d, err := th.RT.Read(x)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, n)
	for i := range buf {
		v := d.IntAt(i)
		if v < 0 || v > 255 {
			return nil, fmt.Errorf("decode: element %d is %d, not a byte (0..255)", i, v)
		}
		buf[i] = byte(v)
	}
	return eval.String(strings.ToValidUTF8(string(buf), "\uFFFD")), nil
}
