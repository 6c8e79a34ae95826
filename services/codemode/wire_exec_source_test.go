package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestWireCheckExecSource(t *testing.T) {
	in := strings.Join([]string{
		`{"kind":"exec_source","input":"// @exec: {\"yield_time_ms\": 500}\ntext('<hi>')"}`,
		`{"kind":"exec_source","input":"text(1)"}`,
		`{"kind":"exec_source","input":"   "}`,
		`{"kind":"exec_source","input":"// @exec: {\"foo\": 1}\ntext(1)"}`,
		`{"kind":"exec_source","input":"// @exec: {\"max_output_tokens\": 9007199254740992}\ntext(1)"}`,
		`{"kind":"exec_source"}`,
	}, "\n")
	var out, errOut bytes.Buffer
	if code := dispatch([]string{"wire", "check"}, strings.NewReader(in), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	want := []string{
		`{"ok":true,"value":{"code":"text('<hi>')","yield_time_ms":500,"max_output_tokens":null}}`,
		`{"ok":true,"value":{"code":"text(1)","yield_time_ms":null,"max_output_tokens":null}}`,
		`{"ok":false,"error":"exec expects raw JavaScript source text (non-empty). Provide JS only, optionally with first-line ` + "`// @exec: {\\\"yield_time_ms\\\": 10000, \\\"max_output_tokens\\\": 1000}`" + `."}`,
		`{"ok":false,"error":"exec pragma only supports ` + "`yield_time_ms` and `max_output_tokens`; got `foo`" + `"}`,
		`{"ok":false,"error":"exec pragma field ` + "`max_output_tokens`" + ` must be a non-negative safe integer"}`,
		`{"ok":false,"error":"exec_source input needs a string \"input\""}`,
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != len(want) {
		t.Fatalf("got %d lines:\n%s", len(got), out.String())
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, got[i], want[i])
		}
	}
}
