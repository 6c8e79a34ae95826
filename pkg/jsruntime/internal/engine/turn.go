package engine

import (
	"errors"
	"strings"
)

// A turn of a cell's event loop inside the engine, and the bridge calls JavaScript makes during it.

// turn is one turn of a cell's event loop: it calls entry (begin or deliver) with the JSON text
// input (see jsonArgument), runs the pending jobs, and returns the records JavaScript queued for Go
// ("" when none). A large input is parsed by QuickJS straight from the UTF-8 bytes: one pass over a
// large tool result instead of decoding it into a string and parsing that again.
func (e *Engine) turn(entry uint64, input string, strs []string) (string, error) {
	args, err := e.arguments(input, strs)
	if err != nil {
		return "", err
	}
	return e.turnWith(entry, args)
}

// turnOne is the turn of deliverOne: value, the JSON text of one tool call's result (small: the
// prelude parses it), and the call's id as a JavaScript integer.
func (e *Engine) turnOne(id int32, value string) (string, error) {
	v, err := e.newString(value)
	if err != nil {
		return "", err
	}
	args := callArguments{values: []uint64{v, uint64(uint32(id))}, argv: e.argv}
	for i, v := range args.values {
		if err := e.w.writeU64(args.argv+uint32(8*i), v); err != nil {
			e.release(args)
			return "", err
		}
	}
	return e.turnWith(e.entry.deliverOne, args)
}

// turnWith calls entry with args (released after the call), runs the pending jobs and takes the
// queued records.
func (e *Engine) turnWith(entry uint64, args callArguments) (string, error) {
	res, err := e.w.call(exCall, e.jsctx, entry, jsUndefined, uint64(len(args.values)), uint64(args.argv))
	e.release(args)
	if err != nil {
		return "", err
	}
	if res != jsUndefined {
		if valueTag(res) == tagException {
			return "", e.takeException()
		}
		e.free(res)
	}
	if _, err := e.evalWith(e.jobsOpts); err != nil {
		return "", err
	}
	return e.take()
}

// take calls the prelude's take and returns the queued records.
func (e *Engine) take() (string, error) {
	v, err := e.w.call(exCall, e.jsctx, e.entry.take, jsUndefined, 0, 0)
	if err != nil || v == jsUndefined {
		return "", err
	}
	defer e.free(v)
	if valueTag(v) != tagString {
		if valueTag(v) == tagException {
			return "", e.takeException()
		}
		return "", Forged("take returned a non-string")
	}
	return e.readText(v)
}

// serveHost answers one call of the bridge: argv holds qjs's four leading arguments and the
// message (see the proxy factory in generators/qjswasm).
func (e *Engine) serveHost(argc, argv uint32) uint64 {
	h := e.host
	if h == nil {
		return jsUndefined
	}
	msg, err := e.hostArgument(argc, argv)
	if err == nil {
		return e.answer(h.Serve(msg))
	}
	var f *ForgedError
	if errors.As(err, &f) {
		h.Fault(err)
		return e.throw(exThrowTypeError, ForgedMessageText)
	}
	// A crossing failed: the module is closing or broken; the outer call reports it.
	return jsUndefined
}

// hostArgument reads the message argument of a bridge call.
func (e *Engine) hostArgument(argc, argv uint32) (string, error) {
	if argc != 5 {
		return "", Forged("bridge called with %d arguments", argc)
	}
	v, err := e.w.readU64(argv + 4*8)
	if err != nil {
		return "", Forged("bridge arguments out of range")
	}
	if valueTag(v) != tagString {
		return "", Forged("bridge called with a non-string message")
	}
	return e.readText(v)
}

// answer turns a reply into the bridge call's return value.
func (e *Engine) answer(r Reply) uint64 {
	switch r.kind {
	case replyString:
		v, err := e.newString(r.text)
		if err != nil {
			return e.throw(exThrowTypeError, err.Error())
		}
		return v
	case replySyntaxError:
		return e.throw(exThrowSyntaxError, r.text)
	case replyTypeError:
		return e.throw(exThrowTypeError, r.text)
	default:
		return jsUndefined
	}
}

// throw raises an error of the export's kind with message text in JavaScript and returns the
// exception marker for the bridge call to return.
func (e *Engine) throw(kind export, text string) uint64 {
	text = strings.ReplaceAll(text, "\x00", "\uFFFD")
	if len(text)+1 > scratchSize {
		text = text[:scratchSize-4]
	}
	if err := e.w.writeCString(e.scratch, text); err != nil {
		return jsUndefined
	}
	v, err := e.w.call(kind, e.jsctx, uint64(e.scratch))
	if err != nil {
		return jsUndefined
	}
	return v
}

// callArguments are the JS values of an entry point call and the argv array that holds them.
type callArguments struct {
	values []uint64
	argv   uint32
	owned  bool // argv was allocated for this call (more than one argument)
}

// arguments makes the values of an entry point call: input's (jsonArgument) and a string for
// each of strs, in an argv array (the engine's own for up to two arguments).
func (e *Engine) arguments(input string, strs []string) (callArguments, error) {
	arg, err := e.jsonArgument(input)
	if err != nil {
		return callArguments{}, err
	}
	a := callArguments{values: append(make([]uint64, 0, 1+len(strs)), arg), argv: e.argv}
	for _, s := range strs {
		v, err := e.newString(s)
		if err != nil {
			e.release(a)
			return callArguments{}, err
		}
		a.values = append(a.values, v)
	}
	if len(a.values) > 2 {
		if a.argv, err = e.malloc(uint32(8 * len(a.values))); err != nil {
			e.release(a)
			return callArguments{}, err
		}
		a.owned = true
	}
	for i, v := range a.values {
		if err := e.w.writeU64(a.argv+uint32(8*i), v); err != nil {
			e.release(a)
			return callArguments{}, err
		}
	}
	return a, nil
}

// release frees the values of a call and the argv it allocated.
func (e *Engine) release(a callArguments) {
	for _, v := range a.values {
		e.free(v)
	}
	if a.owned {
		_, _ = e.w.call(exFree, uint64(a.argv))
	}
}
