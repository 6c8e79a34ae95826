package engine

import (
	"fmt"
	"strings"
	"sync"

	"github.com/fastschema/qjs"
)

// Scripts and modules: compiling (once per process), evaluating, and loading a cell's module.

// compiledScripts caches bytecode by source: every runtime compiles the same prelude and job
// script, and evaluating bytecode is several times cheaper than compiling source.
var compiledScripts sync.Map // source -> []byte

// bytecodeOptions returns eval options that run src, compiled once per process. The options, the
// bytecode and the file name stay allocated for the runtime's life.
func (e *Engine) bytecodeOptions(file, src string) (uint64, error) {
	code, name, err := e.placeBytecode(file, src)
	if err != nil {
		return 0, err
	}
	return e.w.call(exCreateEvalOption, 0, uint64(code.addr), uint64(code.n), uint64(name.addr), evalTypeGlobal|evalFlagStrict)
}

// block is an allocation in wasm memory.
type block struct{ addr, n uint32 }

// placeBytecode copies the bytecode of src, compiled once per process, and the file name into new
// allocations.
func (e *Engine) placeBytecode(file, src string) (code, name block, err error) {
	bc, err := e.compile(file, src)
	if err != nil {
		return code, name, err
	}
	if code.addr, err = e.malloc(uint32(len(bc))); err != nil {
		return code, name, err
	}
	code.n = uint32(len(bc))
	b, err := e.w.view(code.addr, code.n)
	if err != nil {
		return code, name, err
	}
	copy(b, bc)
	p, err := e.cString(file)
	return code, block{uint32(p), uint32(len(file) + 1)}, err
}

// discard zeroes an allocation and frees it. Before the image is taken, this keeps the pages it
// spanned out of the image (restore skips all-zero pages), which every engine would otherwise
// copy and keep resident: the prelude's bytecode is about 45 KB.
func (e *Engine) discard(b block) {
	if v, err := e.w.view(b.addr, b.n); err == nil {
		clear(v)
	}
	_, _ = e.w.call(exFree, uint64(b.addr))
}

// compile returns the bytecode of the global script src.
func (e *Engine) compile(file, src string) ([]byte, error) {
	if code, ok := compiledScripts.Load(src); ok {
		return code.([]byte), nil
	}
	c := e.rt.Context()
	code, err := c.Compile(file, qjs.Code(src))
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", file, err)
	}
	compiledScripts.Store(src, code)
	return code, nil
}

// evalBytecode evaluates the global script src from its cached bytecode and returns its value.
// QuickJS copies what it reads from bytecode, so the copy in wasm memory is discarded afterwards.
func (e *Engine) evalBytecode(file, src string) (uint64, error) {
	code, name, err := e.placeBytecode(file, src)
	if err != nil {
		return 0, err
	}
	defer e.discard(name)
	defer e.discard(code)
	opts, err := e.w.call(exCreateEvalOption, 0, uint64(code.addr), uint64(code.n), uint64(name.addr), evalTypeGlobal|evalFlagStrict)
	if err != nil {
		return 0, err
	}
	defer e.w.call(exFree, opts)
	return e.evalWith(opts)
}

// evalSource evaluates a short global script from source.
func (e *Engine) evalSource(file, src string) (uint64, error) {
	name, err := e.cString(file)
	if err != nil {
		return 0, err
	}
	defer e.w.call(exFree, name)
	if err := e.w.writeCString(e.scratch, src); err != nil {
		return 0, err
	}
	opts, err := e.w.call(exCreateEvalOption, uint64(e.scratch), 0, 0, name, evalTypeGlobal|evalFlagStrict)
	if err != nil {
		return 0, err
	}
	defer e.w.call(exFree, opts)
	return e.evalWith(opts)
}

func (e *Engine) evalWith(opts uint64) (uint64, error) {
	v, err := e.w.call(exEval, e.jsctx, opts)
	if err != nil {
		return 0, err
	}
	if valueTag(v) == tagException {
		return 0, e.takeException()
	}
	return v, nil
}

// property reads obj[name].
func (e *Engine) property(obj uint64, name string) (uint64, error) {
	if err := e.w.writeCString(e.scratch, name); err != nil {
		return 0, err
	}
	c := e.rt.Context()
	v := c.Call("JS_GetPropertyStr", e.jsctx, obj, uint64(e.scratch)).Raw()
	if valueTag(v) == tagException {
		return 0, e.takeException()
	}
	return v, nil
}

// callValue calls fn(arg0, text) during setup.
func (e *Engine) callValue(fn, arg0 uint64, text string) (uint64, error) {
	s, err := e.newString(text)
	if err != nil {
		return 0, err
	}
	defer e.free(s)
	argv, err := e.malloc(16)
	if err != nil {
		return 0, err
	}
	defer e.w.call(exFree, uint64(argv))
	if err := e.w.writeU64(argv, arg0); err != nil {
		return 0, err
	}
	if err := e.w.writeU64(argv+8, s); err != nil {
		return 0, err
	}
	v, err := e.w.call(exCall, e.jsctx, fn, jsUndefined, 2, uint64(argv))
	if err != nil {
		return 0, err
	}
	if valueTag(v) == tagException {
		return 0, e.takeException()
	}
	return v, nil
}

// LoadModule registers and links the cell's module, whose source has no NUL, without running it,
// and sets e.main. A module has exports only if its source holds the keyword export, which no
// escape can spell: then the module that imports it (mainModuleName) is registered too, and is
// the one begin imports.
func (e *Engine) LoadModule(src string) error {
	e.main = moduleName
	load := []uint64{0}
	if strings.Contains(src, "export") {
		e.main = mainModuleName
		load = append(load, e.mainOpts)
	}
	opts := e.modOpts
	if len(src)+1 > scratchSize {
		code, err := e.cString(src)
		if err != nil {
			return err
		}
		defer e.w.call(exFree, code)
		if opts, err = e.w.call(exCreateEvalOption, code, 0, 0, e.modFile, evalTypeModule|evalFlagStrict); err != nil {
			return err
		}
		defer e.w.call(exFree, opts)
	} else if err := e.w.writeCString(e.scratch, src); err != nil {
		return err
	}
	load[0] = opts
	for _, o := range load {
		module, err := e.w.call(exLoad, e.jsctx, o)
		if err != nil {
			return err
		}
		if valueTag(module) == tagException {
			return e.takeException()
		}
		e.free(module)
	}
	return nil
}
