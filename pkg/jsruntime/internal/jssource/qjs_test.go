package jssource

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/fastschema/qjs"
)

// noDir is a directory that does not exist: QuickJS mounts its runtime's CWD at "/", and the
// tests give it nothing to read.
const noDir = "/nonexistent-jssource-test-dir"

// runQJS evaluates src as the module exec_main.mjs in a fresh bare QuickJS runtime and returns
// "value: " and the JSON of its default export, or "error: " and the error text.
func runQJS(t testing.TB, src string) string {
	t.Helper()
	// No deadline: qjs's CloseOnContextDone would close the module when it passed, and the first
	// qjs.New of the process (compiling the module) can take many seconds on a loaded machine. A
	// sample that hangs is caught by go test's own -timeout, with every goroutine's stack.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rt, err := qjs.New(qjs.Option{
		Context: ctx, CloseOnContextDone: true, CWD: noDir, Stdout: io.Discard, Stderr: io.Discard,
	})
	if err != nil {
		t.Fatalf("qjs.New: %v", err)
	}
	out, dead := evalModule(rt, src)
	if !dead {
		rt.Close()
	}
	return out
}

// evalModule runs src; dead reports a runtime that panicked and must not be touched again.
func evalModule(rt *qjs.Runtime, src string) (out string, dead bool) {
	defer func() {
		if r := recover(); r != nil {
			out, dead = fmt.Sprintf("panic: %v", r), true
		}
	}()
	c := rt.Context()
	v, err := c.Eval(ModuleFile, qjs.Code(src), qjs.TypeModule())
	if err != nil {
		return "error: " + strings.TrimSuffix(err.Error(), "\n"), false
	}
	defer v.Free()
	// qjs's own Value.JSONStringify garbles some strings (v0.0.6); JSON.stringify in
	// JavaScript and Value.String do not.
	j, err := c.Global().GetPropertyStr("JSON").InvokeJS("stringify", v)
	if err != nil {
		return "error: " + err.Error(), false
	}
	defer j.Free()
	return "value: " + j.String(), false
}
