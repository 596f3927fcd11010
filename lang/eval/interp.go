package eval

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/tref-lang/tref/lang/ast"
	"github.com/tref-lang/tref/lang/parser"
	"github.com/tref-lang/tref/lang/pos"
	"github.com/tref-lang/tref/lang/resolve"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/safefile"
)

// Config configures an Interpreter.
type Config struct {
	// RT owns every tensor the scripts make.
	RT *refs.Runtime
	// Universe holds the builtins by name (stdlib.Universe()).
	Universe map[string]*Builtin
	// Stdout receives print's output; nil discards it.
	Stdout io.Writer
	// NoLiveness turns off dropping variables at their last use (they
	// die at scope end or rebinding), to measure what liveness saves.
	NoLiveness bool
	// Sandbox, when set, confines the files the scripts import, load and
	// save to its directory tree (tref's --sandbox); Thread.Sandbox
	// passes it to the file builtins.
	Sandbox *safefile.Sandbox
	// Argv is the script's command-line arguments (after the script's
	// path, as Python's sys.argv[1:]): scripts read them as the list of
	// strings argv, empty when nil.
	Argv []string
}

// MaxSourceBytes bounds a source file that a script imports (or the CLI
// runs): larger ones, and files that are not regular files (a FIFO,
// /dev/zero), are refused before they are read.
const MaxSourceBytes = 64 << 20

// ReadSource reads a tref source file: a regular file of at most
// MaxSourceBytes (safefile.ReadFile), read with that limit. Errors name
// the file once: "cannot read x.tr: not a regular file (a named pipe)".
func ReadSource(path string) ([]byte, error) {
	src, err := safefile.ReadFile(path, MaxSourceBytes)
	if err != nil {
		var se *safefile.Error
		var pe *fs.PathError
		switch {
		case errors.As(err, &se):
			return nil, fmt.Errorf("cannot read %s: %s", path, se.Msg)
		case errors.As(err, &pe):
			return nil, fmt.Errorf("cannot read %s: %v", path, pe.Err)
		}
		return nil, fmt.Errorf("cannot read %s: %v", path, err)
	}
	return src, nil
}

// Interpreter runs tref files, test blocks and REPL input over one
// runtime. It is not safe for concurrent use, except Interrupt.
type Interpreter struct {
	cfg     Config
	th      *Thread
	names   map[string]bool
	modules map[string]*Module
	order   []*Module
	sources map[string][]byte
	// mainDir is the directory of the file run first, for naming files in
	// import cycles.
	mainDir string

	// argv is the list of the script's arguments, held for the
	// interpreter's life; every read of argv retains it.
	argv *List

	repl        *Module
	replGlobals []*ast.Binding
	// replText is the session's REPL inputs so far, one after the other;
	// replLine is the line the next input starts on.
	replText []byte
	replLine int

	intr atomic.Bool
}

// Module states.
const (
	modLoaded uint8 = iota
	modRunning
	modDone
	modFailed
)

// NewInterpreter makes an interpreter.
func NewInterpreter(cfg Config) *Interpreter {
	if cfg.Stdout == nil {
		cfg.Stdout = io.Discard
	}
	in := &Interpreter{
		cfg:     cfg,
		names:   map[string]bool{},
		modules: map[string]*Module{},
		sources: map[string][]byte{},
		repl:    &Module{Name: "<repl>", Path: parser.ReplFile},
	}
	for n := range cfg.Universe {
		in.names[n] = true
	}
	in.names[argvName] = true
	args := make([]Value, len(cfg.Argv))
	for i, a := range cfg.Argv {
		args[i] = String(a)
	}
	in.argv = NewList(args)
	in.th = &Thread{RT: cfg.RT, Stdout: cfg.Stdout, Sandbox: cfg.Sandbox, interp: in, col: &collector{rt: cfg.RT}, intr: &in.intr}
	return in
}

// Thread is the interpreter's thread (for tools that call builtins or
// script functions between runs).
func (in *Interpreter) Thread() *Thread { return in.th }

// Source returns the text of a file the interpreter read (or the REPL
// session's inputs, under parser.ReplFile), for quoting in error messages.
func (in *Interpreter) Source(path string) []byte { return in.sources[path] }

// Interrupt aborts the current evaluation with an "interrupted" error at
// the next loop iteration or call, and makes the ops it queued fail at the
// next op boundary instead of running (refs.Runtime.Interrupt), so that a
// statement waiting on them returns too. It is safe to call from another
// goroutine (a signal handler). The next run, test or REPL input starts
// uninterrupted.
func (in *Interpreter) Interrupt() {
	in.intr.Store(true)
	if in.cfg.RT != nil {
		in.cfg.RT.Interrupt()
	}
}

// resetInterrupt clears an earlier Interrupt, at the start of a run, a
// test, a module load or a REPL input. (Call, which a placement hook's
// interpreter makes while ops run, leaves the runtime's flag as it is.)
func (in *Interpreter) resetInterrupt() {
	in.intr.Store(false)
	if in.cfg.RT != nil {
		in.cfg.RT.ClearInterrupt()
	}
}

// RunFile parses, resolves and runs a file's top level (test blocks are
// skipped), executes every pending op, then releases every binding of
// every module: afterwards the runtime holds no refs of the run.
func (in *Interpreter) RunFile(path string) error {
	return in.runMain(path, nil, nil)
}

// RunSource is RunFile over src instead of the file's contents (imports
// are still read from disk, relative to path).
func (in *Interpreter) RunSource(path string, src []byte) error {
	return in.runMain(path, src, nil)
}

// RunTests runs a file's top level, then each test block in its own
// scope, calling report with each test's name and failure (nil when it
// passed). The error is a failure outside any test (a static error, or a
// failing top-level statement).
func (in *Interpreter) RunTests(path string, report func(name string, err error)) error {
	return in.runMain(path, nil, report)
}

func (in *Interpreter) runMain(path string, src []byte, report func(string, error)) (err error) {
	in.resetInterrupt()
	defer in.recoverPanic(&err)
	defer in.releaseModules()
	if in.mainDir == "" {
		in.mainDir = filepath.Dir(path)
	}
	m, err := in.load(path, src, true, nil)
	if err != nil {
		return err
	}
	if err := in.runModule(nil, m, ast.Pos{}); err != nil {
		in.flush()
		return err
	}
	if err := in.flush(); err != nil {
		return err
	}
	if report == nil {
		return nil
	}
	for _, t := range m.code.tests {
		report(t.name, in.runTest(m, t))
	}
	return nil
}

// LoadModule loads the file at path as `import` would (parsed, resolved,
// with its own imports, its globals kept) and runs its top level, once:
// loading a file again returns the same module. It is how a tool gets at
// a script's functions to call them with Call (the placement hooks of
// --hooks); the module stays loaded until Close.
func (in *Interpreter) LoadModule(path string) (m *Module, err error) {
	in.resetInterrupt()
	defer in.recoverPanic(&err)
	if in.mainDir == "" {
		in.mainDir = filepath.Dir(path)
	}
	if m, err = in.load(path, nil, false, nil); err != nil {
		return nil, err
	}
	if m.state == modFailed {
		return nil, fmt.Errorf("module %s failed when it was first loaded", path)
	}
	if err := in.runModule(nil, m, ast.Pos{}); err != nil {
		in.flush()
		return nil, err
	}
	if err := in.flush(); err != nil {
		return nil, err
	}
	return m, nil
}

// runTest runs one test block in a fresh frame of its module.
func (in *Interpreter) runTest(m *Module, t testCode) (err error) {
	in.resetInterrupt()
	defer in.recoverPanic(&err)
	th := in.th
	fr := th.push(nil, nil, nil, m, nil, m.code.nlocals)
	_, err = t.body(fr)
	th.pop(fr)
	th.col.collectNow()
	if ferr := in.flush(); err == nil {
		err = ferr
	}
	return err
}

// CheckFile parses and resolves a file and every file it imports,
// without running anything.
func (in *Interpreter) CheckFile(path string) error {
	savedMods, savedOrder := in.modules, in.order
	in.modules, in.order = map[string]*Module{}, nil
	defer func() { in.modules, in.order = savedMods, savedOrder }()
	if in.mainDir == "" {
		in.mainDir = filepath.Dir(path)
	}
	_, err := in.load(path, nil, true, nil)
	return err
}

// EvalREPL runs one REPL input in the persistent session. A bare
// expression as the last statement gives its value (forced, so Format
// shows it); otherwise the value is None. The caller owns the value and
// releases it.
func (in *Interpreter) EvalREPL(src string) (v Value, err error) {
	in.resetInterrupt()
	defer in.recoverPanic(&err)
	// Inputs number their lines on from the previous one, so that a
	// position in an earlier input (a function it defined) names the
	// right line; an input still open (more lines to come) is not kept.
	// The text grows in place (an input still open leaves its bytes past
	// replText's end, overwritten by the next), so that a session of many
	// inputs does not copy its transcript for each.
	first := max(in.replLine, 1)
	text := append(in.replText, src...)
	if !strings.HasSuffix(src, "\n") {
		text = append(text, '\n')
	}
	in.sources[parser.ReplFile] = text
	input := text[len(in.replText):] // src, ending in a newline
	f, err := parser.ParseREPLAt(input, first)
	if err == nil || !parser.Incomplete(err) {
		in.replText, in.replLine = text, first+pos.Endings(input)
	}
	if err != nil {
		return nil, err
	}
	res, err := resolve.File(f, resolve.Options{Universe: in.names, Predeclared: in.replGlobals, REPL: true, NoLiveness: in.cfg.NoLiveness})
	if err != nil {
		return nil, err
	}
	imports, err := in.loadImports(parser.ReplFile, ".", res, nil)
	if err != nil {
		return nil, err
	}
	in.replGlobals = res.Globals
	m := in.repl
	for len(m.globals) < len(res.Globals) {
		m.globals = append(m.globals, nil)
	}
	m.names = make([]string, len(res.Globals))
	for i, b := range res.Globals {
		m.names[i] = b.Name
	}
	var last ast.Stmt
	if n := len(f.Stmts); n > 0 {
		switch s := f.Stmts[n-1].(type) {
		case *ast.ExprStmt:
			last = s
		case *ast.AssignStmt:
			if _, ok := s.Value.(*ast.MutateExpr); ok {
				last = s // t.sort() shows its result, xs.append(v) nothing
			}
		}
	}
	code := in.compileModule(m, f, res, imports, last)
	th := in.th
	fr := th.push(nil, nil, nil, m, nil, code.nlocals)
	_, err = code.top(fr)
	th.pop(fr)
	th.col.collectNow()
	v, th.replValue = th.replValue, nil
	if err == nil {
		err = in.flush()
	}
	if err == nil && v != nil {
		_, err = th.Format(v) // force its tensors to the host
	}
	if err != nil {
		if v != nil {
			Release(th.RT, v)
		}
		return nil, err
	}
	if v == nil {
		v = None
	}
	return v, nil
}

// setREPLValue keeps the value of the REPL input's final expression.
func (th *Thread) setREPLValue(v Value) {
	if th.replValue != nil {
		Release(th.RT, th.replValue)
	}
	th.replValue = v
}

// Lookup returns the value a chain of names denotes in the REPL session
// (["m", "w"] for `m.w`: a binding or a builtin, then record fields or
// module members), borrowed, without evaluating anything.
func (in *Interpreter) Lookup(path []string) (Value, bool) {
	var v Value = in.repl
	for i, name := range path {
		var ok bool
		switch x := v.(type) {
		case *Module:
			v, ok = x.Member(name)
			if !ok && i == 0 {
				var b *Builtin
				b, ok = in.cfg.Universe[name]
				v = b
			}
		case *Record:
			v, ok = x.Get(name)
		case *Builtin:
			v, ok = x.Members[name]
		}
		if !ok {
			return nil, false
		}
		if c, isCell := v.(*cell); isCell {
			v = c.v
		}
	}
	return v, true
}

// Call calls a function value with borrowed arguments from outside any
// evaluation (a tool calling into a script, as placement hooks do), runs
// the ops it submitted and returns an owned result.
func (in *Interpreter) Call(fn Value, args ...Value) (v Value, err error) {
	in.intr.Store(false)
	defer in.recoverPanic(&err)
	v, err = in.th.Call(fn, args, nil)
	in.th.col.collectNow()
	if err == nil {
		err = in.flush()
	}
	if err != nil {
		if v != nil {
			Release(in.th.RT, v)
		}
		return nil, err
	}
	return v, nil
}

// Globals lists the names bound in the REPL session, sorted.
func (in *Interpreter) Globals() []string {
	var out []string
	for i, b := range in.replGlobals {
		if i < len(in.repl.globals) && in.repl.globals[i] != nil {
			out = append(out, b.Name)
		}
	}
	sort.Strings(out)
	return out
}

// Close releases everything the session holds: REPL bindings and every
// module's globals. The interpreter can still be used afterwards.
func (in *Interpreter) Close() {
	defer func() { recover() }() // teardown after an internal error must not crash
	in.releaseModules()
	releaseAll(in.th.RT, in.repl.globals)
	clear(in.repl.globals)
	in.th.col.collectNow()
}

// releaseModules drops the globals of every loaded module, newest first,
// then breaks any cycle left among them.
func (in *Interpreter) releaseModules() {
	for i := len(in.order) - 1; i >= 0; i-- {
		m := in.order[i]
		g := m.globals
		m.globals = make([]Value, len(g))
		releaseAll(in.th.RT, g)
	}
	in.modules, in.order = map[string]*Module{}, nil
	in.th.col.collectNow()
}

// recoverPanic turns a Go panic during evaluation into an internal error
// positioned at the latest call site, and resets the thread.
func (in *Interpreter) recoverPanic(err *error) {
	p := recover()
	if p == nil {
		return
	}
	th := in.th
	// Inside a builtin call its call site is the best position; otherwise
	// the statement being run.
	pos := th.sitePos
	if th.curSite == nil && th.stmtPos != nil {
		pos = *th.stmtPos
	}
	*err = internalError(p, pos)
	th.resetStack()
	th.args = th.args[:0]
	th.replValue = nil
	th.sitePos, th.curSite, th.stmtPos = ast.Pos{}, nil, nil
}

// flush executes every pending op and positions a failure.
func (in *Interpreter) flush() error {
	if err := in.cfg.RT.Flush(); err != nil {
		return in.th.runtimeError(err)
	}
	return nil
}

// runtimeError positions an error from the runtime outside any frame.
func (th *Thread) runtimeError(err error) error {
	var op *refs.OpError
	if errors.As(err, &op) {
		if p := op.Site.Pos; p.IsValid() {
			return &Error{Pos: p, Msg: err.Error(), Stack: th.pathStack(op.Site.Path, p)}
		}
	}
	return err
}

// load reads, parses, resolves and compiles a file and, recursively, the
// files it imports. src overrides the file's contents when not nil.
func (in *Interpreter) load(path string, src []byte, main bool, chain []string) (*Module, error) {
	key, err := filepath.Abs(path)
	if err != nil {
		key = filepath.Clean(path)
	}
	if m := in.modules[key]; m != nil {
		return m, nil
	}
	if src == nil {
		if !main {
			if err := in.cfg.Sandbox.Check(path); err != nil {
				return nil, fmt.Errorf("cannot import %v", err)
			}
		}
		if src, err = ReadSource(path); err != nil {
			return nil, err
		}
	}
	in.sources[path] = src
	f, err := parser.ParseFile(path, src)
	if err != nil {
		return nil, err
	}
	res, err := resolve.File(f, resolve.Options{Universe: in.names, TrackGlobals: main, NoLiveness: in.cfg.NoLiveness})
	if err != nil {
		var list pos.ErrorList
		if res != nil && errors.As(err, &list) {
			// A missing or broken import is a static error too: report
			// it with the file's others.
			if _, ierr := in.loadImports(path, filepath.Dir(path), res, append(chain, key)); ierr != nil {
				var more pos.ErrorList
				if errors.As(ierr, &more) {
					list = append(append(pos.ErrorList(nil), list...), more...)
					list.Sort()
					return nil, list
				}
			}
		}
		return nil, err
	}
	stem := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	m := &Module{Name: stem, Path: path, globals: make([]Value, len(res.Globals))}
	for _, b := range res.Globals {
		m.names = append(m.names, b.Name)
	}
	in.modules[key] = m
	imports, err := in.loadImports(path, filepath.Dir(path), res, append(chain, key))
	if err != nil {
		delete(in.modules, key)
		return nil, err
	}
	m.code = in.compileModule(m, f, res, imports, nil)
	in.order = append(in.order, m)
	return m, nil
}

// loadImports loads the files a resolved file imports, relative to dir.
func (in *Interpreter) loadImports(path, dir string, res *resolve.Module, chain []string) (map[*ast.ImportStmt]*Module, error) {
	imports := map[*ast.ImportStmt]*Module{}
	for _, imp := range res.Imports {
		p := imp.Path
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		key, err := filepath.Abs(p)
		if err != nil {
			key = filepath.Clean(p)
		}
		for i, k := range chain {
			if k == key {
				cycle := append(append([]string(nil), chain[i:]...), key)
				for j, c := range cycle {
					cycle[j] = in.displayPath(c)
				}
				msg := "import cycle: " + strings.Join(cycle, " -> ")
				if len(chain) <= 1 {
					return nil, pos.ErrorList{{Pos: imp.At, Msg: msg}}
				}
				return nil, &cycleError{msg: msg}
			}
		}
		m, err := in.load(p, nil, false, chain)
		if err != nil {
			var cyc *cycleError
			if errors.As(err, &cyc) {
				if len(chain) <= 1 {
					// Report the cycle at the outermost import, where the
					// file being run (or checked) starts it.
					return nil, pos.ErrorList{{Pos: imp.At, Msg: cyc.msg}}
				}
				return nil, err
			}
			var list pos.ErrorList
			if errors.As(err, &list) {
				return nil, err
			}
			return nil, pos.ErrorList{{Pos: imp.At, Msg: err.Error()}}
		}
		imports[imp] = m
	}
	return imports, nil
}

// cycleError travels up the chain of imports to the outermost one.
type cycleError struct{ msg string }

func (e *cycleError) Error() string { return e.msg }

// displayPath names a file relative to the main file's directory.
func (in *Interpreter) displayPath(abs string) string {
	base, err := filepath.Abs(in.mainDir)
	if err == nil {
		if rel, err := filepath.Rel(base, abs); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return abs
}

// runModule runs an imported module's top level once.
func (in *Interpreter) runModule(caller *frame, m *Module, pos ast.Pos) error {
	switch m.state {
	case modDone:
		return nil
	case modRunning:
		return caller.errorf(pos, "import cycle through %s", m.Path)
	case modFailed:
		return caller.errorf(pos, "module %s failed when it was first imported", m.Path)
	}
	m.state = modRunning
	th := in.th
	fr := th.push(nil, th.cur, nil, m, nil, m.code.nlocals)
	_, err := m.code.top(fr)
	th.pop(fr)
	th.maybeCollect()
	if err != nil {
		m.state = modFailed
		return importTrace(err, caller, pos)
	}
	m.state = modDone
	return nil
}

// importTrace adds the import that ran a failing module's top level to
// the error's traceback, so that it leads from the failure back to the
// file being run: "at <module> (lib.tr:3:9)", "at <module> (main.tr:1:1)".
func importTrace(err error, caller *frame, at ast.Pos) error {
	e, ok := err.(*Error)
	if !ok || caller == nil {
		return err
	}
	if len(e.Stack) == 0 {
		e.Stack = append(e.Stack, pos.Frame{Fn: moduleFn, Pos: e.Pos})
	}
	e.Stack = append(e.Stack, pos.Frame{Fn: caller.name(), Pos: at})
	return e
}
