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
func (h *heap) bytecodeOptions(file, src string) (uint64, error) {
	code, name, err := h.placeBytecode(file, src)
	if err != nil {
		return 0, err
	}
	return h.w.call(exCreateEvalOption, 0, uint64(code.addr), uint64(code.n), uint64(name.addr), evalTypeGlobal|evalFlagStrict)
}

// block is an allocation in wasm memory.
type block struct{ addr, n uint32 }

// placeBytecode copies the bytecode of src, compiled once per process, and the file name into new
// allocations.
func (h *heap) placeBytecode(file, src string) (code, name block, err error) {
	bc, err := h.compile(file, src)
	if err != nil {
		return code, name, err
	}
	if code.addr, err = h.malloc(uint32(len(bc))); err != nil {
		return code, name, err
	}
	code.n = uint32(len(bc))
	b, err := h.w.view(code.addr, code.n)
	if err != nil {
		return code, name, err
	}
	copy(b, bc)
	p, err := h.cString(file)
	return code, block{uint32(p), uint32(len(file) + 1)}, err
}

// discard zeroes an allocation and frees it. Before the image is taken, this keeps the pages it
// spanned out of the image (restore skips all-zero pages), which every engine would otherwise
// copy and keep resident: the prelude's bytecode is about 45 KB.
func (h *heap) discard(b block) {
	if v, err := h.w.view(b.addr, b.n); err == nil {
		clear(v)
	}
	_, _ = h.w.call(exFree, uint64(b.addr))
}

// compile returns the bytecode of the global script src.
func (h *heap) compile(file, src string) ([]byte, error) {
	if code, ok := compiledScripts.Load(src); ok {
		return code.([]byte), nil
	}
	c := h.rt.Context()
	code, err := c.Compile(file, qjs.Code(src))
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", file, err)
	}
	compiledScripts.Store(src, code)
	return code, nil
}

// evalBytecode evaluates the global script src from its cached bytecode and returns its value.
// QuickJS copies what it reads from bytecode, so the copy in wasm memory is discarded afterwards.
func (h *heap) evalBytecode(file, src string) (uint64, error) {
	code, name, err := h.placeBytecode(file, src)
	if err != nil {
		return 0, err
	}
	defer h.discard(name)
	defer h.discard(code)
	opts, err := h.w.call(exCreateEvalOption, 0, uint64(code.addr), uint64(code.n), uint64(name.addr), evalTypeGlobal|evalFlagStrict)
	if err != nil {
		return 0, err
	}
	defer h.w.call(exFree, opts)
	return h.evalWith(opts)
}

// evalSource evaluates a short global script from source.
func (h *heap) evalSource(file, src string) (uint64, error) {
	name, err := h.cString(file)
	if err != nil {
		return 0, err
	}
	defer h.w.call(exFree, name)
	if err := h.w.writeCString(h.scratch, src); err != nil {
		return 0, err
	}
	opts, err := h.w.call(exCreateEvalOption, uint64(h.scratch), 0, 0, name, evalTypeGlobal|evalFlagStrict)
	if err != nil {
		return 0, err
	}
	defer h.w.call(exFree, opts)
	return h.evalWith(opts)
}

func (h *heap) evalWith(opts uint64) (uint64, error) {
	v, err := h.w.call(exEval, h.jsctx, opts)
	if err != nil {
		return 0, err
	}
	if valueTag(v) == tagException {
		return 0, h.takeException()
	}
	return v, nil
}

// property reads obj[name].
func (h *heap) property(obj uint64, name string) (uint64, error) {
	if err := h.w.writeCString(h.scratch, name); err != nil {
		return 0, err
	}
	c := h.rt.Context()
	v := c.Call("JS_GetPropertyStr", h.jsctx, obj, uint64(h.scratch)).Raw()
	if valueTag(v) == tagException {
		return 0, h.takeException()
	}
	return v, nil
}

// callValue calls fn(arg0, text) during setup.
func (h *heap) callValue(fn, arg0 uint64, text string) (uint64, error) {
	s, err := h.newString(text)
	if err != nil {
		return 0, err
	}
	defer h.free(s)
	argv, err := h.malloc(16)
	if err != nil {
		return 0, err
	}
	defer h.w.call(exFree, uint64(argv))
	if err := h.w.writeU64(argv, arg0); err != nil {
		return 0, err
	}
	if err := h.w.writeU64(argv+8, s); err != nil {
		return 0, err
	}
	v, err := h.w.call(exCall, h.jsctx, fn, jsUndefined, 2, uint64(argv))
	if err != nil {
		return 0, err
	}
	if valueTag(v) == tagException {
		return 0, h.takeException()
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
