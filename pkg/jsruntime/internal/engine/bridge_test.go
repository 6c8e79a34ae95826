package engine

import (
	"strings"
	"testing"
)

// scriptedHost answers each bridge message with the reply its table names, and records the
// messages it served and the faults it was told of.
type scriptedHost struct {
	replies map[string]Reply
	served  []string
	faults  []string
}

func (h *scriptedHost) Serve(msg string) Reply {
	h.served = append(h.served, msg)
	return h.replies[msg]
}

func (h *scriptedHost) Fault(err error) { h.faults = append(h.faults, err.Error()) }

// callBridge calls the engine's bridge function, as JavaScript holding it would, with the JS value
// arg, and returns what it returned (a string, or "" for undefined) or what it threw.
func callBridge(t *testing.T, e *Engine, arg uint64) (returned, thrown string) {
	t.Helper()
	if err := e.w.writeU64(e.argv, arg); err != nil {
		t.Fatal(err)
	}
	v, err := e.w.call(exCall, e.jsctx, e.hostFn, jsUndefined, 1, uint64(e.argv))
	if err != nil {
		t.Fatal(err)
	}
	switch valueTag(v) {
	case tagException:
		return "", e.takeException().Error()
	case tagString:
		defer e.free(v)
		s, err := e.readString(v)
		if err != nil {
			t.Fatal(err)
		}
		return s, ""
	default:
		e.free(v)
		return "", ""
	}
}

// TestBridgeThrowsWhatTheHostAnswers: the bridge hands the host each string message as it is,
// returns a String reply to JavaScript and throws a TypeError or SyntaxError reply there; a call
// that is not one string (an int, undefined) is a forgery the host only hears of through Fault,
// answered with ForgedMessageText's TypeError.
func TestBridgeThrowsWhatTheHostAnswers(t *testing.T) {
	e := newTestEngine(t)
	h := &scriptedHost{replies: map[string]Reply{
		"string": String("ab\u00e9"),
		"type":   TypeError("bad type"),
		"syntax": SyntaxError("bad syntax"),
		"forged": TypeError(ForgedMessageText),
	}}
	e.Attach(h, 1<<20)
	defer e.Detach()
	for msg, want := range map[string]struct{ returned, thrown string }{
		"string":  {returned: "ab\u00e9"},
		"type":    {thrown: "TypeError: bad type"},
		"syntax":  {thrown: "SyntaxError: bad syntax"},
		"forged":  {thrown: "TypeError: " + ForgedMessageText},
		"nothing": {},
	} {
		s, err := e.newString(msg)
		if err != nil {
			t.Fatal(err)
		}
		returned, thrown := callBridge(t, e, s)
		e.free(s)
		if first, _, _ := strings.Cut(thrown, "\n"); returned != want.returned || first != want.thrown {
			t.Errorf("%q: returned %q, threw %q; want %q, %q", msg, returned, thrown, want.returned, want.thrown)
		}
	}
	if len(h.served) != 5 || len(h.faults) != 0 {
		t.Fatalf("served %q, faults %q", h.served, h.faults)
	}
	for _, arg := range []uint64{42, jsUndefined} { // an int and undefined: not strings
		_, thrown := callBridge(t, e, arg)
		if first, _, _ := strings.Cut(thrown, "\n"); first != "TypeError: "+ForgedMessageText {
			t.Errorf("%x: threw %q", arg, thrown)
		}
		if h.faults[len(h.faults)-1] != ForgedMessageText+": bridge called with a non-string message" {
			t.Errorf("%x: faults %q", arg, h.faults)
		}
	}
	if len(h.served) != 5 || len(h.faults) != 2 {
		t.Fatalf("the forgeries reached Serve: served %q, faults %q", h.served, h.faults)
	}
}
