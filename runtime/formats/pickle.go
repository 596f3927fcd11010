package formats

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"
)

// A restricted unpickler for the data.pkl of a PyTorch checkpoint. It
// interprets the opcodes of pickle protocol 2 (which torch.save uses)
// as a stack machine over plain values and never imports or calls
// anything: GLOBAL names are resolved by pickleHooks.global against a
// fixed allow-list, and REDUCE, BUILD and BINPERSID are handed to the
// hooks, which understand only the few callables a checkpoint of tensors
// needs. The machine is iterative, so hostile nesting cannot overflow
// the Go stack, and every value it makes counts against maxPickleValues.

// Limits on one pickle. A state_dict needs about 25 values per tensor, so
// maxPickleValues admits MaxEntries tensors with room to spare while
// bounding the memory a hostile pickle can make the machine hold (each
// opcode byte can push a value, and values cost tens of bytes).
const (
	maxPickleBytes  = 64 << 20
	maxPickleValues = 1 << 23
	maxGlobalName   = 256
)

// Pickled values. Python's None, bool, int (that fits int64), float and
// str are nil-free Go values: pkNone, bool, int64, float64, string.
type (
	pkNone   struct{}
	pkBigInt struct{} // an int wider than 64 bits; its value is never needed
	pkTuple  []any
	pkList   struct{ items []any }
	// pkDict keeps insertion order, as Python's dict and OrderedDict do.
	pkDict struct{ keys, vals []any }
)

// pickleHooks give meaning to the opcodes that name or call objects.
type pickleHooks interface {
	// global resolves GLOBAL/STACK_GLOBAL; anything outside the
	// allow-list is an error naming the global.
	global(module, name string) (any, error)
	// reduce applies REDUCE: fn(*args).
	reduce(fn any, args pkTuple) (any, error)
	// build applies BUILD: obj.__setstate__(state).
	build(obj, state any) error
	// persistentLoad resolves BINPERSID.
	persistentLoad(pid any) (any, error)
}

// pkKind names a value's Python type for messages, without looking
// inside it (values may be cyclic).
func pkKind(v any) string {
	switch v := v.(type) {
	case pkNone:
		return "None"
	case bool:
		return "bool"
	case int64, pkBigInt:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case pkTuple:
		return "tuple"
	case *pkList:
		return "list"
	case *pkDict:
		return "dict"
	case interface{ pkType() string }:
		return v.pkType()
	}
	return fmt.Sprintf("%T", v)
}

// Opcode names, for messages about opcodes tref does not interpret.
var pkOpNames = map[byte]string{
	'(': "MARK", '.': "STOP", '0': "POP", '1': "POP_MARK", '2': "DUP", 'F': "FLOAT", 'I': "INT", 'J': "BININT",
	'K': "BININT1", 'L': "LONG", 'M': "BININT2", 'N': "NONE", 'P': "PERSID", 'Q': "BINPERSID", 'R': "REDUCE",
	'S': "STRING", 'T': "BINSTRING", 'U': "SHORT_BINSTRING", 'V': "UNICODE", 'X': "BINUNICODE", 'a': "APPEND",
	'b': "BUILD", 'c': "GLOBAL", 'd': "DICT", '}': "EMPTY_DICT", 'e': "APPENDS", 'g': "GET", 'h': "BINGET",
	'i': "INST", 'j': "LONG_BINGET", 'l': "LIST", ']': "EMPTY_LIST", 'o': "OBJ", 'p': "PUT", 'q': "BINPUT",
	'r': "LONG_BINPUT", 's': "SETITEM", 't': "TUPLE", ')': "EMPTY_TUPLE", 'u': "SETITEMS", 'G': "BINFLOAT",
	0x80: "PROTO", 0x81: "NEWOBJ", 0x82: "EXT1", 0x83: "EXT2", 0x84: "EXT4", 0x85: "TUPLE1", 0x86: "TUPLE2",
	0x87: "TUPLE3", 0x88: "NEWTRUE", 0x89: "NEWFALSE", 0x8a: "LONG1", 0x8b: "LONG4", 'B': "BINBYTES",
	'C': "SHORT_BINBYTES", 0x8c: "SHORT_BINUNICODE", 0x8d: "BINUNICODE8", 0x8e: "BINBYTES8", 0x8f: "EMPTY_SET",
	0x90: "ADDITEMS", 0x91: "FROZENSET", 0x92: "NEWOBJ_EX", 0x93: "STACK_GLOBAL", 0x94: "MEMOIZE", 0x95: "FRAME",
	0x96: "BYTEARRAY8", 0x97: "NEXT_BUFFER", 0x98: "READONLY_BUFFER",
}

type unpickler struct {
	data   []byte
	pos    int
	stack  []any
	marks  []int // stack lengths at each open MARK
	memo   map[uint32]any
	values int
	hooks  pickleHooks
}

// unpickle runs the pickle in data to its STOP and returns the result.
func unpickle(data []byte, hooks pickleHooks) (any, error) {
	if len(data) > maxPickleBytes {
		return nil, fmt.Errorf("pickle of %d bytes exceeds the limit of %d", len(data), maxPickleBytes)
	}
	u := &unpickler{data: data, memo: map[uint32]any{}, hooks: hooks}
	for {
		at := u.pos
		if u.pos >= len(u.data) {
			return nil, fmt.Errorf("pickle ends at byte %d without STOP (truncated?)", u.pos)
		}
		op := u.data[u.pos]
		u.pos++
		if op == '.' {
			return u.stop()
		}
		if err := u.step(op); err != nil {
			name := pkOpNames[op]
			if name == "" {
				name = "unknown"
			}
			return nil, fmt.Errorf("pickle byte %d, opcode %s: %w", at, name, err)
		}
	}
}

// stop finishes at STOP: exactly the result must remain, and nothing may
// follow it (torch writes nothing after it).
func (u *unpickler) stop() (any, error) {
	if len(u.marks) != 0 || len(u.stack) != 1 {
		return nil, fmt.Errorf("pickle stops at byte %d with %d values and %d open marks on the stack (want one value)", u.pos-1, len(u.stack), len(u.marks))
	}
	if rest := len(u.data) - u.pos; rest != 0 {
		return nil, fmt.Errorf("%d unexpected bytes after the pickle's STOP", rest)
	}
	return u.stack[0], nil
}

var errUnsupportedOp = errors.New("not supported (tref reads the pickle subset torch.save writes for tensors, dicts and lists)")

func (u *unpickler) step(op byte) error {
	switch op {
	case 0x80: // PROTO
		v, err := u.read(1)
		if err != nil {
			return err
		}
		if v[0] < 2 || v[0] > 5 {
			return fmt.Errorf("protocol %d (want 2 to 5)", v[0])
		}
		return nil
	case 0x95: // FRAME: a length prefix for buffering; the data follows inline.
		_, err := u.read(8)
		return err
	case '(':
		u.marks = append(u.marks, len(u.stack))
		return u.count()
	case '}':
		return u.push(&pkDict{})
	case ']':
		return u.push(&pkList{})
	case ')':
		return u.push(pkTuple{})
	case 'N':
		return u.push(pkNone{})
	case 0x88:
		return u.push(true)
	case 0x89:
		return u.push(false)
	case 'K', 'M': // BININT1, BININT2
		size := uint64(1)
		if op == 'M' {
			size = 2
		}
		v, err := u.uint(size)
		if err != nil {
			return err
		}
		return u.push(int64(v))
	case 'J':
		v, err := u.uint(4)
		if err != nil {
			return err
		}
		return u.push(int64(int32(uint32(v))))
	case 0x8a, 0x8b: // LONG1, LONG4
		return u.long(op)
	case 'G':
		v, err := u.read(8)
		if err != nil {
			return err
		}
		return u.push(math.Float64frombits(binary.BigEndian.Uint64(v)))
	case 'X', 0x8c, 0x8d: // BINUNICODE, SHORT_BINUNICODE, BINUNICODE8
		return u.unicode(op)
	case 't':
		items, err := u.popMark()
		if err != nil {
			return err
		}
		return u.push(pkTuple(items))
	case 0x85, 0x86, 0x87: // TUPLE1..3
		n := int(op-0x85) + 1
		items, err := u.popN(n)
		if err != nil {
			return err
		}
		return u.push(pkTuple(items))
	case 'a', 'e':
		return u.appends(op == 'e')
	case 's', 'u':
		return u.setitems(op == 'u')
	case 'q', 'r', 0x94: // BINPUT, LONG_BINPUT, MEMOIZE
		return u.put(op)
	case 'h', 'j': // BINGET, LONG_BINGET
		return u.get(op)
	case 'c', 0x93: // GLOBAL, STACK_GLOBAL
		return u.global(op)
	case 'R':
		return u.reduce()
	case 'b':
		st, err := u.popN(1)
		if err != nil {
			return err
		}
		obj, err := u.top()
		if err != nil {
			return err
		}
		return u.hooks.build(obj, st[0])
	case 'Q':
		pid, err := u.popN(1)
		if err != nil {
			return err
		}
		v, err := u.hooks.persistentLoad(pid[0])
		if err != nil {
			return err
		}
		return u.push(v)
	}
	return errUnsupportedOp
}

// count charges one value against maxPickleValues.
func (u *unpickler) count() error {
	u.values++
	if u.values > maxPickleValues {
		return fmt.Errorf("more than %d values", maxPickleValues)
	}
	return nil
}

func (u *unpickler) push(v any) error {
	if err := u.count(); err != nil {
		return err
	}
	u.stack = append(u.stack, v)
	return nil
}

// read takes the next n bytes of the pickle, or fails if it ends first.
func (u *unpickler) read(n uint64) ([]byte, error) {
	if n > uint64(len(u.data)-u.pos) {
		return nil, fmt.Errorf("needs %d bytes, but the pickle ends %d bytes later (truncated?)", n, len(u.data)-u.pos)
	}
	b := u.data[u.pos : u.pos+int(n)]
	u.pos += int(n)
	return b, nil
}

// uint reads an unsigned little-endian integer of size bytes (1, 2, 4
// or 8): an opcode's argument or a length prefix.
func (u *unpickler) uint(size uint64) (uint64, error) {
	b, err := u.read(size)
	if err != nil {
		return 0, err
	}
	return littleEndian(b), nil
}

// prefixed reads a byte string after its length, an unsigned integer of
// size bytes.
func (u *unpickler) prefixed(size uint64) ([]byte, error) {
	n, err := u.uint(size)
	if err != nil {
		return nil, err
	}
	return u.read(n)
}

// littleEndian is b (at most 8 bytes) as a little-endian unsigned integer.
func littleEndian(b []byte) uint64 {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// floor is the lowest stack index the current opcode may pop: values
// under the innermost MARK belong to an unfinished TUPLE or SETITEMS.
func (u *unpickler) floor() int {
	if len(u.marks) == 0 {
		return 0
	}
	return u.marks[len(u.marks)-1]
}

func (u *unpickler) popN(n int) ([]any, error) {
	if len(u.stack)-u.floor() < n {
		return nil, fmt.Errorf("needs %d values on the stack, found %d", n, len(u.stack)-u.floor())
	}
	items := append([]any(nil), u.stack[len(u.stack)-n:]...)
	u.stack = u.stack[:len(u.stack)-n]
	return items, nil
}

func (u *unpickler) top() (any, error) {
	if len(u.stack) <= u.floor() {
		return nil, errors.New("the stack is empty")
	}
	return u.stack[len(u.stack)-1], nil
}

// popMark pops the values above the innermost MARK, and the MARK.
func (u *unpickler) popMark() ([]any, error) {
	if len(u.marks) == 0 {
		return nil, errors.New("no MARK on the stack")
	}
	m := u.marks[len(u.marks)-1]
	u.marks = u.marks[:len(u.marks)-1]
	items := append([]any(nil), u.stack[m:]...)
	u.stack = u.stack[:m]
	return items, nil
}

func (u *unpickler) long(op byte) error {
	size := uint64(4)
	if op == 0x8a {
		size = 1
	}
	b, err := u.prefixed(size)
	if err != nil {
		return err
	}
	n := len(b)
	if n > 8 {
		return u.push(pkBigInt{})
	}
	// Little-endian two's complement, sign-extended from its top byte.
	v := littleEndian(b)
	if n > 0 && n < 8 && b[n-1]&0x80 != 0 {
		v |= ^uint64(0) << (8 * n)
	}
	return u.push(int64(v))
}

func (u *unpickler) unicode(op byte) error {
	size := uint64(8)
	switch op {
	case 0x8c:
		size = 1
	case 'X':
		size = 4
	}
	b, err := u.prefixed(size)
	if err != nil {
		return err
	}
	if !utf8.Valid(b) {
		return errors.New("string is not valid UTF-8")
	}
	return u.push(string(b))
}

// popItems pops the items of an APPENDS or SETITEMS (many: down to the
// mark) or of an APPEND or SETITEM (n of them).
func (u *unpickler) popItems(many bool, n int) ([]any, error) {
	if many {
		return u.popMark()
	}
	return u.popN(n)
}

func (u *unpickler) appends(many bool) error {
	items, err := u.popItems(many, 1)
	if err != nil {
		return err
	}
	obj, err := u.top()
	if err != nil {
		return err
	}
	l, ok := obj.(*pkList)
	if !ok {
		return fmt.Errorf("appending to a %s (want a list)", pkKind(obj))
	}
	l.items = append(l.items, items...)
	return nil
}

func (u *unpickler) setitems(many bool) error {
	items, err := u.popItems(many, 2)
	if err != nil {
		return err
	}
	if len(items)%2 != 0 {
		return fmt.Errorf("%d values for key-value pairs", len(items))
	}
	obj, err := u.top()
	if err != nil {
		return err
	}
	d, ok := obj.(*pkDict)
	if !ok {
		return fmt.Errorf("setting items of a %s (want a dict)", pkKind(obj))
	}
	for i := 0; i < len(items); i += 2 {
		d.keys = append(d.keys, items[i])
		d.vals = append(d.vals, items[i+1])
	}
	return nil
}

// put stores the top of the stack in the memo. The memo is a map, so an
// index of 2^32-1 costs one entry, not a table that large.
func (u *unpickler) put(op byte) error {
	idx := uint32(len(u.memo))  // MEMOIZE
	if op == 'q' || op == 'r' { // BINPUT, LONG_BINPUT
		size := uint64(1)
		if op == 'r' {
			size = 4
		}
		v, err := u.uint(size)
		if err != nil {
			return err
		}
		idx = uint32(v)
	}
	v, err := u.top()
	if err != nil {
		return err
	}
	if err := u.count(); err != nil {
		return err
	}
	u.memo[idx] = v
	return nil
}

func (u *unpickler) get(op byte) error {
	size := uint64(4)
	if op == 'h' {
		size = 1
	}
	idx, err := u.uint(size)
	if err != nil {
		return err
	}
	v, ok := u.memo[uint32(idx)]
	if !ok {
		return fmt.Errorf("memo entry %d was never stored", idx)
	}
	return u.push(v)
}

func (u *unpickler) global(op byte) error {
	var module, name string
	if op == 'c' {
		var err error
		if module, err = u.line(); err != nil {
			return err
		}
		if name, err = u.line(); err != nil {
			return err
		}
	} else {
		v, err := u.popN(2)
		if err != nil {
			return err
		}
		m, ok1 := v[0].(string)
		n, ok2 := v[1].(string)
		if !ok1 || !ok2 {
			return fmt.Errorf("module and name are %s and %s (want str)", pkKind(v[0]), pkKind(v[1]))
		}
		module, name = m, n
	}
	g, err := u.hooks.global(module, name)
	if err != nil {
		return err
	}
	return u.push(g)
}

// line reads a newline-terminated argument of GLOBAL.
func (u *unpickler) line() (string, error) {
	for i := u.pos; i < len(u.data) && i-u.pos <= maxGlobalName; i++ {
		if u.data[i] == '\n' {
			s := u.data[u.pos:i]
			u.pos = i + 1
			if !utf8.Valid(s) {
				return "", errors.New("global name is not valid UTF-8")
			}
			return string(s), nil
		}
	}
	return "", fmt.Errorf("global name without a newline in the next %d bytes", maxGlobalName)
}

func (u *unpickler) reduce() error {
	v, err := u.popN(2)
	if err != nil {
		return err
	}
	args, ok := v[1].(pkTuple)
	if !ok {
		return fmt.Errorf("arguments are a %s (want a tuple)", pkKind(v[1]))
	}
	r, err := u.hooks.reduce(v[0], args)
	if err != nil {
		return err
	}
	return u.push(r)
}
