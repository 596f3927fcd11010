package formats

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/tref-lang/tref/runtime/tensor"
)

// PyTorch checkpoints (torch.save since torch 1.6): a zip archive whose
// members all sit under one directory, <name>/data.pkl (a pickle of the
// saved object), <name>/data/<key> (the raw bytes of each storage),
// <name>/version and, since torch 2.0, <name>/byteorder. A tensor is
// pickled as a call of torch._utils._rebuild_tensor_v2 on a persistent
// id ('storage', torch.FloatStorage, key, location, numel) and its
// strided view (offset, size, stride) into that storage. torch 2.x
// writes tensors the same way (its TypedStorage pickles as the legacy
// torch.FloatStorage classes); only a bare torch.UntypedStorage, saved on
// its own, names torch.UntypedStorage, whose elements are bytes.

// ptDepth bounds the nesting of dicts and lists in a checkpoint; torch
// state_dicts nest two or three levels (checkpoint, state_dict, optimizer
// state).
const ptDepth = 64

// ptMaxSmall bounds the small text members (byteorder).
const ptMaxSmall = 64

// ptMaxExpansion bounds the bytes a checkpoint's tensors may load to, as
// a multiple of the file's size. Views can hold more elements than the
// file stores (an expanded view has stride 0; tied weights share one
// storage), so without a bound a small file could make Load allocate
// terabytes when no Options.Check is given. Deflate's maximum ratio, the
// bound an npz member has, is far above what real checkpoints need.
const ptMaxExpansion = maxDeflateRatio

// ptStorageRaw maps torch's storage classes to their element types.
var ptStorageRaw = map[string]raw{
	"FloatStorage":    rawF32,
	"DoubleStorage":   rawF64,
	"HalfStorage":     rawF16,
	"BFloat16Storage": rawBF16,
	"LongStorage":     rawI64,
	"IntStorage":      rawI32,
	"ShortStorage":    rawI16,
	"CharStorage":     rawI8,
	"ByteStorage":     rawU8,
	"BoolStorage":     rawBool,
	"UntypedStorage":  rawU8,
}

const ptSupported = "FloatStorage, DoubleStorage, HalfStorage, BFloat16Storage, LongStorage, IntStorage, ShortStorage, CharStorage, ByteStorage, BoolStorage"

// ptDTypes are the torch dtype objects (torch.float16) a checkpoint may
// hold as plain values, as in {"dtype": torch.float16}; they are inert
// and left out of the result like other non-tensor values.
var ptDTypes = map[string]bool{
	"float32": true, "float": true, "float64": true, "double": true, "float16": true, "half": true,
	"bfloat16": true, "int64": true, "long": true, "int32": true, "int": true, "int16": true,
	"short": true, "int8": true, "uint8": true, "bool": true, "complex64": true, "cfloat": true,
	"complex128": true, "cdouble": true,
}

// ptGlobalKind is what an allow-listed global is.
type ptGlobalKind uint8

const (
	ptOrderedDict ptGlobalKind = iota
	ptRebuildTensor
	ptRebuildParameter
	ptRebuildParameterWithState
	ptSizeClass
	ptStorageClass
	ptDType
)

// pkGlobal is an allow-listed global: a name with a fixed meaning, never
// an imported object.
type pkGlobal struct {
	module, name string
	kind         ptGlobalKind
	raw          raw // for storage classes
}

func (g *pkGlobal) pkType() string { return g.module + "." + g.name }

// ptStorage is one storage of the archive, shared by the tensors that
// view it.
type ptStorage struct {
	key   string
	class string // "FloatStorage"
	raw   raw
	numel int64
	zf    *zip.File
}

func (*ptStorage) pkType() string { return "storage" }

// ptTensor is a tensor as the pickle declares it: a strided view into a
// storage, validated when it gets its name.
type ptTensor struct {
	st           *ptStorage
	offset       int64
	size, stride []int64
}

func (*ptTensor) pkType() string { return "torch.Tensor" }

// ptArchive resolves the pickle's globals and storages against the
// archive's members: it is the unpickler's pickleHooks.
type ptArchive struct {
	size     int64 // of the file
	prefix   string
	members  map[string]*zip.File
	storages map[string]*ptStorage
}

// OpenTorch reads a PyTorch checkpoint's zip directory and its data.pkl,
// with a restricted unpickler that never imports or runs anything (see
// pickle.go). The checkpoint must be a dict: its tensors, also those in
// nested dicts, lists and tuples, become entries named by their path of
// keys joined with "." ({"model": {"fc1.weight": w}} gives
// "model.fc1.weight", a list's items their index), as a state_dict names
// them; other values (numbers, strings, None) are left out, and a note
// lists them. Each tensor's data is read from its storage by its Entry's
// Load, made contiguous. Since views may repeat their storage's elements,
// all the tensors together may hold at most ptMaxExpansion (1032) times
// the file's size.
func OpenTorch(path string, opts *Options) (*File, error) {
	bad := func(format string, args ...any) error { return errorf(path, Torch, format, args...) }
	fh, size, err := openRegular(path, Torch)
	if err != nil {
		return nil, err
	}
	keep := false
	defer func() {
		if !keep {
			fh.Close()
		}
	}()
	zr, err := zip.NewReader(fh, size)
	// Member names are looked up, never extracted.
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, wrap(path, Torch, "not a valid zip archive (torch.save writes one since torch 1.6; older checkpoints must be re-saved)", err)
	}
	// A checkpoint holds a member per storage and a few records.
	if len(zr.File) > MaxEntries+16 {
		return nil, bad("%d archive members, more than the limit of %d tensors", len(zr.File), MaxEntries)
	}
	a, err := newPtArchive(zr.File, size)
	if err != nil {
		return nil, bad("%v", err)
	}
	big, err := a.byteOrder()
	if err != nil {
		return nil, bad("%v", err)
	}
	pkl, err := readSmallMember(a.members[a.prefix+"data.pkl"], size, maxPickleBytes)
	if err != nil {
		return nil, bad("%sdata.pkl: %v", a.prefix, err)
	}
	root, err := unpickle(pkl, a)
	if err != nil {
		return nil, bad("%sdata.pkl: %v", a.prefix, err)
	}
	fl := &ptFlattener{names: map[string]bool{}}
	if err := fl.top(root); err != nil {
		return nil, bad("%v", err)
	}
	f := newFile(path, Torch, fh.Close)
	keepHalf := opts != nil && opts.KeepHalf
	f.Entries = make([]Entry, len(fl.entries))
	var total int64 // at most MaxEntries tensors of at most 2^43 bytes
	for i, pe := range fl.entries {
		v, err := pe.t.view()
		if err != nil {
			return nil, bad("tensor %q: %v", pe.name, err)
		}
		if total += int64(v.numel) * int64(v.st.raw.size()); total > size*ptMaxExpansion {
			return nil, bad("the tensors up to %q view %d bytes, more than %d times the file's %d bytes (expanded views or storages shared many times)",
				pe.name, total, ptMaxExpansion, size)
		}
		e := &f.Entries[i]
		*e = Entry{Name: pe.name, Meta: v.meta(keepHalf), Stored: v.st.class, Bytes: int64(v.numel) * int64(v.st.raw.size())}
		e.load = func() (*tensor.Dense, error) {
			if !f.open() {
				return nil, bad("tensor %q loaded after the file was closed", e.Name)
			}
			d, err := v.load(big, keepHalf, opts)
			if err != nil {
				return nil, wrap(path, Torch, fmt.Sprintf("tensor %q (%sdata/%s)", e.Name, a.prefix, v.st.key), err)
			}
			return d, nil
		}
		if e.Meta.DType == tensor.Float32 && (v.st.raw == rawF16 || v.st.raw == rawBF16) {
			f.note("%s tensors are loaded as float32 (the cpu backend computes in float32)", rawDTypes[v.st.raw])
		}
		if !v.contiguous {
			f.note("non-contiguous tensors (transposed or strided views) are made contiguous on load")
		}
	}
	if fl.skipped > 0 {
		f.note("%s", fl.skippedNote())
	}
	keep = true
	return f, nil
}

// newPtArchive finds the archive's directory (the one holding data.pkl)
// and indexes its members.
func newPtArchive(files []*zip.File, size int64) (*ptArchive, error) {
	a := &ptArchive{size: size, members: make(map[string]*zip.File, len(files)), storages: map[string]*ptStorage{}}
	var dirs []string
	for _, zf := range files {
		if a.members[zf.Name] != nil {
			return nil, fmt.Errorf("duplicate archive member %q", zf.Name)
		}
		a.members[zf.Name] = zf
		if dir, rest, ok := strings.Cut(zf.Name, "/"); ok && rest == "data.pkl" {
			dirs = append(dirs, dir)
		}
	}
	switch len(dirs) {
	case 1:
		a.prefix = dirs[0] + "/"
		return a, nil
	case 0:
		for name := range a.members {
			if strings.HasSuffix(name, "/constants.pkl") {
				return nil, errors.New("a TorchScript archive (torch.jit.save), not a torch.save checkpoint; save the model's state_dict() with torch.save instead")
			}
		}
		return nil, errors.New("no <name>/data.pkl member: not a torch.save checkpoint")
	}
	sort.Strings(dirs)
	return nil, fmt.Errorf("several data.pkl members (%s/data.pkl, %s/data.pkl, ...): not one torch.save checkpoint", dirs[0], dirs[1])
}

// byteOrder reads the byteorder record torch 2.x writes; without it the
// data is little-endian, as torch assumes.
func (a *ptArchive) byteOrder() (big bool, err error) {
	zf := a.members[a.prefix+"byteorder"]
	if zf == nil {
		return false, nil
	}
	b, err := readSmallMember(zf, a.size, ptMaxSmall)
	if err != nil {
		return false, fmt.Errorf("%sbyteorder: %v", a.prefix, err)
	}
	switch string(b) {
	case "little":
		return false, nil
	case "big":
		return true, nil
	}
	return false, fmt.Errorf("%sbyteorder is %q (want \"little\" or \"big\")", a.prefix, clip(string(b), 20))
}

// readSmallMember reads a whole member of at most max bytes, checking its
// CRC-32.
func readSmallMember(zf *zip.File, size, max int64) ([]byte, error) {
	if err := checkZipMember(zf, size); err != nil {
		return nil, err
	}
	if zf.UncompressedSize64 > uint64(max) {
		return nil, fmt.Errorf("%d bytes exceed the limit of %d", zf.UncompressedSize64, max)
	}
	b := make([]byte, zf.UncompressedSize64)
	if err := readMember(zf, 0, b, true); err != nil {
		return nil, err
	}
	return b, nil
}

// readMember reads len(buf) bytes of a member from byte off. When the read
// reaches the member's end it reads on to EOF, which makes the zip reader
// verify the size and CRC-32.
func readMember(zf *zip.File, off int64, buf []byte, toEnd bool) error {
	rc, err := zf.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	if _, err := io.CopyN(io.Discard, rc, off); err != nil {
		return noEOF(err)
	}
	if _, err := io.ReadFull(rc, buf); err != nil {
		return fmt.Errorf("reading %d bytes at offset %d: %w", len(buf), off, noEOF(err))
	}
	if !toEnd {
		return nil
	}
	var one [1]byte
	if n, err := rc.Read(one[:]); n != 0 || !errors.Is(err, io.EOF) {
		if err == nil || errors.Is(err, io.EOF) {
			err = errors.New("data continues past the declared size")
		}
		return err
	}
	return nil
}

// global resolves the allow-list: every other global is refused by name,
// since unpickling it would import and run code.
func (a *ptArchive) global(module, name string) (any, error) {
	g := &pkGlobal{module: module, name: name}
	switch {
	case module == "collections" && name == "OrderedDict":
		g.kind = ptOrderedDict
	case module == "torch._utils" && name == "_rebuild_tensor_v2":
		g.kind = ptRebuildTensor
	case module == "torch._utils" && name == "_rebuild_parameter":
		g.kind = ptRebuildParameter
	case module == "torch._utils" && name == "_rebuild_parameter_with_state":
		g.kind = ptRebuildParameterWithState
	case module == "torch" && name == "Size":
		g.kind = ptSizeClass
	case (module == "torch" || module == "torch.storage") && name == "UntypedStorage",
		module == "torch" && ptStorageRaw[name] != rawInvalid:
		g.kind, g.raw = ptStorageClass, ptStorageRaw[name]
	case module == "torch" && strings.HasSuffix(name, "Storage"):
		return nil, fmt.Errorf("storage type torch.%s is not supported (supported: %s)", name, ptSupported)
	case module == "torch" && ptDTypes[name]:
		g.kind = ptDType
	default:
		return nil, fmt.Errorf("global %s.%s is not allowed: tref reads tensors, dicts and lists from a checkpoint and never imports or runs what a pickle names", clip(module, 80), clip(name, 80))
	}
	return g, nil
}

func (a *ptArchive) reduce(fn any, args pkTuple) (any, error) {
	g, ok := fn.(*pkGlobal)
	if !ok {
		return nil, fmt.Errorf("calling a %s", pkKind(fn))
	}
	switch g.kind {
	case ptOrderedDict:
		if len(args) != 0 {
			return nil, fmt.Errorf("collections.OrderedDict called with %d arguments (want none)", len(args))
		}
		return &pkDict{}, nil
	case ptSizeClass:
		if len(args) != 1 {
			return nil, fmt.Errorf("torch.Size called with %d arguments (want 1)", len(args))
		}
		if t, ok := args[0].(pkTuple); ok {
			return t, nil
		}
		return nil, fmt.Errorf("torch.Size of a %s (want a tuple)", pkKind(args[0]))
	case ptRebuildTensor:
		return rebuildTensor(args)
	case ptRebuildParameter, ptRebuildParameterWithState:
		want := 3
		if g.kind == ptRebuildParameterWithState {
			want = 4
		}
		if len(args) != want {
			return nil, fmt.Errorf("%s called with %d arguments (want %d)", g.pkType(), len(args), want)
		}
		t, ok := args[0].(*ptTensor)
		if !ok {
			return nil, fmt.Errorf("%s of a %s (want a tensor)", g.pkType(), pkKind(args[0]))
		}
		// requires_grad, backward hooks and the Parameter's Python
		// attributes do not change the data.
		return t, nil
	}
	return nil, fmt.Errorf("%s cannot be called", g.pkType())
}

// rebuildTensor checks the arguments of torch._utils._rebuild_tensor_v2:
// (storage, storage_offset, size, stride, requires_grad, backward_hooks)
// and, from torch 2.0, an optional metadata dict.
func rebuildTensor(args pkTuple) (any, error) {
	const fn = "torch._utils._rebuild_tensor_v2"
	if len(args) != 6 && len(args) != 7 {
		return nil, fmt.Errorf("%s called with %d arguments (want 6 or 7)", fn, len(args))
	}
	st, ok := args[0].(*ptStorage)
	if !ok {
		return nil, fmt.Errorf("%s: storage is a %s", fn, pkKind(args[0]))
	}
	offset, ok := args[1].(int64)
	if !ok {
		return nil, fmt.Errorf("%s: storage_offset is a %s (want int)", fn, pkKind(args[1]))
	}
	size, err := pkInts(args[2])
	if err != nil {
		return nil, fmt.Errorf("%s: size %v", fn, err)
	}
	stride, err := pkInts(args[3])
	if err != nil {
		return nil, fmt.Errorf("%s: stride %v", fn, err)
	}
	if _, ok := args[4].(bool); !ok {
		return nil, fmt.Errorf("%s: requires_grad is a %s (want bool)", fn, pkKind(args[4]))
	}
	if _, ok := args[5].(*pkDict); !ok {
		return nil, fmt.Errorf("%s: backward_hooks is a %s (want an OrderedDict)", fn, pkKind(args[5]))
	}
	if len(args) == 7 {
		// torch 2.x records the conj and neg bits here; neither applies
		// to the real dtypes tref reads, and a set one would change the
		// values.
		switch m := args[6].(type) {
		case pkNone:
		case *pkDict:
			if len(m.keys) != 0 {
				return nil, fmt.Errorf("%s: tensor metadata with %d fields (conj or neg views) is not supported", fn, len(m.keys))
			}
		default:
			return nil, fmt.Errorf("%s: metadata is a %s (want a dict)", fn, pkKind(args[6]))
		}
	}
	return &ptTensor{st: st, offset: offset, size: size, stride: stride}, nil
}

// pkInts reads a tuple of ints (a size or a stride).
func pkInts(v any) ([]int64, error) {
	t, ok := v.(pkTuple)
	if !ok {
		return nil, fmt.Errorf("is a %s (want a tuple of ints)", pkKind(v))
	}
	if len(t) > maxDims {
		return nil, fmt.Errorf("has %d dimensions, more than the limit of %d", len(t), maxDims)
	}
	out := make([]int64, len(t))
	for i, x := range t {
		n, ok := x.(int64)
		if !ok {
			return nil, fmt.Errorf("holds a %s (want ints)", pkKind(x))
		}
		out[i] = n
	}
	return out, nil
}

// build applies BUILD, which torch uses only to set an OrderedDict's
// attributes: the _metadata (module versions) that state_dict() attaches.
// They describe no tensors, so they are dropped unread.
func (a *ptArchive) build(obj, state any) error {
	if _, ok := obj.(*pkDict); ok {
		return nil
	}
	return fmt.Errorf("setting the state of a %s is not supported", pkKind(obj))
}

// persistentLoad resolves ('storage', storage_type, key, location, numel)
// to the archive member <name>/data/<key>, which must hold exactly numel
// elements. Every tensor viewing a storage shares one *ptStorage.
func (a *ptArchive) persistentLoad(pid any) (any, error) {
	t, ok := pid.(pkTuple)
	if !ok || len(t) != 5 || t[0] != "storage" {
		return nil, errors.New("persistent id is not ('storage', type, key, location, numel)")
	}
	g, ok := t[1].(*pkGlobal)
	if !ok || g.kind != ptStorageClass {
		return nil, fmt.Errorf("persistent id names a %s, not a storage type", pkKind(t[1]))
	}
	key, ok1 := t[2].(string)
	_, ok2 := t[3].(string)
	numel, ok3 := t[4].(int64)
	if !ok1 || !ok2 || !ok3 || numel < 0 {
		return nil, fmt.Errorf("persistent id of storage has a %s key, a %s location and a %s numel (want str, str, non-negative int)",
			pkKind(t[2]), pkKind(t[3]), pkKind(t[4]))
	}
	if st := a.storages[key]; st != nil {
		if st.raw != g.raw || st.numel != numel {
			return nil, fmt.Errorf("storage %q is declared as %d elements of %s and as %d of %s", clip(key, 40), st.numel, st.class, numel, g.name)
		}
		return st, nil
	}
	name := a.prefix + "data/" + key
	zf := a.members[name]
	if zf == nil {
		return nil, fmt.Errorf("storage %q: the archive has no member %q", clip(key, 40), clip(name, 80))
	}
	if err := checkZipMember(zf, a.size); err != nil {
		return nil, err
	}
	es := uint64(g.raw.size())
	if uint64(numel) > zf.UncompressedSize64/es || uint64(numel)*es != zf.UncompressedSize64 {
		return nil, fmt.Errorf("storage %q declares %d elements of %s (%d bytes each), but %s holds %d bytes",
			clip(key, 40), numel, g.name, es, name, zf.UncompressedSize64)
	}
	st := &ptStorage{key: key, class: g.name, raw: g.raw, numel: numel, zf: zf}
	a.storages[key] = st
	return st, nil
}

// ptFlattener names the checkpoint's tensors by their paths.
type ptFlattener struct {
	entries []ptNamed
	names   map[string]bool
	visits  int
	skipped int
	shown   []ptSkipped // the few shallowest, for the note
}

// ptSkipped is a value left out of the result.
type ptSkipped struct {
	name         string
	depth, order int
}

type ptNamed struct {
	name string
	t    *ptTensor
}

// top requires the checkpoint to be a dict, as state_dicts are.
func (fl *ptFlattener) top(root any) error {
	switch root.(type) {
	case *pkDict:
		return fl.walk("", root, 0)
	case *ptTensor:
		return errors.New("the checkpoint holds a single tensor, not a dict of tensors; save {\"name\": tensor} or a state_dict()")
	}
	return fmt.Errorf("the checkpoint holds a %s, not a dict of tensors (such as a state_dict())", pkKind(root))
}

func (fl *ptFlattener) walk(name string, v any, depth int) error {
	fl.visits++
	if fl.visits > maxPickleValues {
		return fmt.Errorf("the checkpoint's dicts and lists reach more than %d values (shared many times over?)", maxPickleValues)
	}
	if depth > ptDepth {
		return fmt.Errorf("%s: dicts and lists nest more than %d deep (or contain themselves)", ptWhere(name), ptDepth)
	}
	switch v := v.(type) {
	case *ptTensor:
		return fl.add(name, v)
	case *pkDict:
		for i, k := range v.keys {
			key, ok := ptKey(k)
			if !ok {
				if ptContainer(v.vals[i]) {
					return fmt.Errorf("%s: a dict key of type %s (want str or int) holds tensors", ptWhere(name), pkKind(k))
				}
				fl.skip(join(name, "<"+pkKind(k)+" key>"), depth+1)
				continue
			}
			if err := fl.walk(join(name, key), v.vals[i], depth+1); err != nil {
				return err
			}
		}
	case *pkList:
		return fl.walkItems(name, v.items, depth)
	case pkTuple:
		return fl.walkItems(name, v, depth)
	default:
		fl.skip(name, depth)
	}
	return nil
}

func (fl *ptFlattener) walkItems(name string, items []any, depth int) error {
	for i, it := range items {
		if err := fl.walk(join(name, strconv.Itoa(i)), it, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func (fl *ptFlattener) add(name string, t *ptTensor) error {
	switch {
	case name == "":
		return errors.New("a tensor has an empty name")
	case fl.names[name]:
		return fmt.Errorf("two tensors are named %q", clip(name, 80))
	case len(fl.entries) == MaxEntries:
		return fmt.Errorf("more than %d tensors", MaxEntries)
	}
	fl.names[name] = true
	fl.entries = append(fl.entries, ptNamed{name, t})
	return nil
}

// skip counts a value left out, keeping the names of the four shallowest
// (a checkpoint's "epoch" says more than its optimizer's settings).
func (fl *ptFlattener) skip(name string, depth int) {
	fl.skipped++
	s := ptSkipped{clip(name, 40), depth, fl.skipped}
	if len(fl.shown) < 4 {
		fl.shown = append(fl.shown, s)
		return
	}
	deepest := 0
	for i, o := range fl.shown {
		if o.depth >= fl.shown[deepest].depth {
			deepest = i
		}
	}
	if depth < fl.shown[deepest].depth {
		fl.shown[deepest] = s
	}
}

// skippedNote lists the values left out, in checkpoint order.
func (fl *ptFlattener) skippedNote() string {
	sort.Slice(fl.shown, func(i, j int) bool { return fl.shown[i].order < fl.shown[j].order })
	names := make([]string, len(fl.shown))
	for i, s := range fl.shown {
		names[i] = s.name
	}
	if fl.skipped > len(names) {
		names = append(names, "...")
	}
	return fmt.Sprintf("%d non-tensor values of the checkpoint are left out (%s)", fl.skipped, strings.Join(names, ", "))
}

// ptKey names a dict entry: str keys as they are, int keys (an
// optimizer's state is keyed by parameter index) in decimal.
func ptKey(k any) (string, bool) {
	switch k := k.(type) {
	case string:
		return k, true
	case int64:
		return strconv.FormatInt(k, 10), true
	}
	return "", false
}

// ptContainer reports whether v may hold tensors.
func ptContainer(v any) bool {
	switch v.(type) {
	case *ptTensor, *pkDict, *pkList, pkTuple:
		return true
	}
	return false
}

// ptWhere names a place in the checkpoint for messages.
func ptWhere(name string) string {
	if name == "" {
		return "the checkpoint"
	}
	return strconv.Quote(clip(name, 80))
}

// ptInts formats a size or stride as torch prints it: (2, 3).
func ptInts(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	if len(v) == 1 {
		return "(" + s[0] + ",)"
	}
	return "(" + strings.Join(s, ", ") + ")"
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// ptView is a validated tensor: a strided view that lies within its
// storage.
type ptView struct {
	st         *ptStorage
	shape      tensor.Shape
	stride     []int64
	numel      int
	offset     int64 // first element, in storage elements
	extent     int64 // elements from the first to one past the last
	contiguous bool
}

// view checks the tensor's view against its storage: sizes within the
// element limit, strides non-negative, and every element it reaches
// inside the storage, all without overflow, before anything is read.
func (t *ptTensor) view() (ptView, error) {
	v := ptView{st: t.st, offset: t.offset, stride: t.stride}
	if len(t.size) != len(t.stride) {
		return v, fmt.Errorf("size %s and stride %s differ in rank", ptInts(t.size), ptInts(t.stride))
	}
	v.shape = make(tensor.Shape, len(t.size))
	for i, d := range t.size {
		if d < 0 || int64(int(d)) != d {
			return v, fmt.Errorf("bad dimension %d in size %s", d, ptInts(t.size))
		}
		v.shape[i] = int(d)
	}
	n, _, err := checkedMeta(v.shape, t.st.raw.size())
	if err != nil {
		return v, err
	}
	v.numel = n
	if t.offset < 0 {
		return v, fmt.Errorf("negative storage offset %d", t.offset)
	}
	limit := t.st.numel
	if n > 0 {
		// extent = 1 + sum((size-1)*stride), each step checked against
		// the storage's size, so no product or sum can overflow.
		v.extent = 1
		for i, d := range t.size {
			s := t.stride[i]
			if s < 0 {
				return v, fmt.Errorf("negative stride %d in %s", s, ptInts(t.stride))
			}
			if d <= 1 {
				continue
			}
			if s > limit/(d-1) || (d-1)*s > limit-v.extent {
				return v, fmt.Errorf("size %s with stride %s reaches past the %d elements of storage %q", ptInts(t.size), ptInts(t.stride), limit, clip(t.st.key, 40))
			}
			v.extent += (d - 1) * s
		}
	}
	if t.offset > limit-v.extent {
		return v, fmt.Errorf("view at offset %d of size %s, stride %s needs elements up to %d, but storage %q holds %d",
			t.offset, ptInts(t.size), ptInts(t.stride), uint64(t.offset)+uint64(v.extent), clip(t.st.key, 40), limit)
	}
	v.contiguous = isRowMajor(v.shape, t.stride)
	return v, nil
}

// isRowMajor reports whether strides are the row-major ones for shape,
// ignoring dimensions of size 1 (whose stride never matters), as torch's
// is_contiguous does.
func isRowMajor(shape tensor.Shape, stride []int64) bool {
	want := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		if shape[i] == 0 {
			return true
		}
		if shape[i] != 1 && stride[i] != want {
			return false
		}
		want *= int64(shape[i])
	}
	return true
}

func (v *ptView) meta(keepHalf bool) tensor.Meta {
	return tensor.Meta{Shape: v.shape, DType: v.st.raw.natural(keepHalf)}
}

// load reads the storage bytes the view spans and makes them a new
// contiguous tensor, asking opts before allocating.
func (v *ptView) load(big, keepHalf bool, opts *Options) (*tensor.Dense, error) {
	r := v.st.raw
	es := int64(r.size())
	m := v.meta(keepHalf)
	direct := v.contiguous && !big && rawOf(m.DType) == r && r != rawBool
	need := m.Bytes()
	if !direct {
		need += v.extent * es
		if !v.contiguous {
			need += int64(v.numel) * es
		}
	}
	if err := opts.check(need); err != nil {
		return nil, err
	}
	d := tensor.NewDense(m)
	if v.numel == 0 {
		return d, nil
	}
	span := d.Buf
	if !direct {
		span = make([]byte, v.extent*es)
	}
	if err := readMember(v.st.zf, v.offset*es, span, v.offset+v.extent == v.st.numel); err != nil {
		return nil, err
	}
	if direct {
		return d, nil
	}
	if !v.contiguous {
		span = gather(span, v.shape, v.stride, int(es))
	}
	if err := decode(d, span, r, big); err != nil {
		return nil, err
	}
	return d, nil
}

// gather copies the elements of a strided view, whose first element is
// at the start of span, into row-major order.
func gather(span []byte, shape tensor.Shape, stride []int64, es int) []byte {
	n := shape.Numel()
	out := make([]byte, n*es)
	idx := make([]int, len(shape))
	var src int64
	for i := range n {
		copy(out[i*es:(i+1)*es], span[src*int64(es):])
		// Advance the row-major index, last dimension fastest.
		for k := len(shape) - 1; k >= 0; k-- {
			idx[k]++
			src += stride[k]
			if idx[k] < shape[k] {
				break
			}
			src -= int64(idx[k]) * stride[k]
			idx[k] = 0
		}
	}
	return out
}
