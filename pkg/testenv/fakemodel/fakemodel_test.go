package fakemodel_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/testenv/fakemodel"
)

// post sends one Responses API request to s and returns the SSE stream it answered.
func post(t *testing.T, s *fakemodel.Server, body string) string {
	t.Helper()
	resp, err := http.Post(s.URL+"/responses", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, data)
	}
	return string(data)
}

// A repeating script answers turn after turn, OnRequest sees every request in order, and
// ToolOutputs finds the outputs Codex sends back.
func TestRepeatOnRequestAndToolOutputs(t *testing.T) {
	var seen []int
	s, err := fakemodel.StartWith(fakemodel.Options{Repeat: true, OnRequest: func(n int, _ []byte) { seen = append(seen, n) }},
		fakemodel.Exec("call_1", "text(1)"), fakemodel.Say("done"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	output := `{"input":[{"type":"message","role":"user","content":"hi"},` +
		`{"type":"custom_tool_call_output","call_id":"call_1","output":"Script completed"}]}`
	for turn := 1; turn <= 2; turn++ {
		if got := post(t, s, `{"input":[]}`); !strings.Contains(got, `"input":"text(1)"`) {
			t.Fatalf("turn %d, request 1 answered:\n%s", turn, got)
		}
		if got := post(t, s, output); !strings.Contains(got, `"text":"done"`) {
			t.Fatalf("turn %d, request 2 answered:\n%s", turn, got)
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 4 || seen[0] != 1 || seen[3] != 4 {
		t.Errorf("OnRequest saw %v, want 1 to 4", seen)
	}
	got := fakemodel.ToolOutputs(s.Requests()[1])
	if len(got) != 1 || got[0].CallID != "call_1" || string(got[0].Output) != `"Script completed"` {
		t.Errorf("ToolOutputs = %+v", got)
	}
	if fakemodel.ToolOutputs(json.RawMessage(`not json`)) != nil {
		t.Error("ToolOutputs of a body that is not JSON found outputs")
	}
}
