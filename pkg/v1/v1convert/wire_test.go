package v1convert

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
)

// Codex's code-mode-protocol host_tests.rs (docs/protocol/README.md#codex-test-suites) where they concern converting domain
// values to and from the wire; the shape-only tests are the generated fixture tests
// (gen/go/wirev1) and compat/wirev1.

func pinned(t *testing.T, m wirev1.Message, want string) {
	t.Helper()
	if got := string(wirev1.Marshal(m)); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

func ptr[T any](v T) *T { return &v }

func TestClientToHostV1VariantsArePinned(t *testing.T) {
	req := codemode.ExecuteRequest{
		ToolCallID: "call-1",
		EnabledTools: []codemode.ToolDefinition{
			{Name: "function_tool", ToolName: codemode.ToolName{Name: "function_tool"}, Description: "function tool", Kind: codemode.ToolKindFunction, InputSchema: []byte(`{"type":"object"}`)},
			{Name: "freeform_tool", ToolName: codemode.ToolName{Name: "freeform_tool", Namespace: ptr("mcp__sample__")}, Description: "freeform tool", Kind: codemode.ToolKindFreeform, OutputSchema: []byte(`{"type":"string"}`)},
		},
		Source:          "text('hello');",
		YieldTimeMs:     ptr(uint64(25)),
		MaxOutputTokens: ptr(100),
	}
	w, err := ExecuteRequestToWire(req)
	if err != nil {
		t.Fatal(err)
	}
	// The pinned execute request of docs/protocol/v1.md#payloads.
	pinned(t, wirev1.OperationRequest{Id: 2, Request: wirev1.Execute{SessionId: "session-1", Request: w}},
		`{"type":"operation/request","id":2,"request":{"method":"session/execute","sessionId":"session-1","request":{"tool_call_id":"call-1","enabled_tools":[{"name":"function_tool","tool_name":{"name":"function_tool","namespace":null},"description":"function tool","kind":"function","input_schema":{"type":"object"},"output_schema":null},{"name":"freeform_tool","tool_name":{"name":"freeform_tool","namespace":"mcp__sample__"},"description":"freeform tool","kind":"freeform","input_schema":null,"output_schema":{"type":"string"}}],"source":"text('hello');","yield_time_ms":25,"max_output_tokens":100}}}`)
	back, err := ExecuteRequestFromWire(w)
	if err != nil || back.ToolCallID != req.ToolCallID || *back.MaxOutputTokens != 100 || *back.EnabledTools[1].ToolName.Namespace != "mcp__sample__" || back.EnabledTools[1].Kind != codemode.ToolKindFreeform {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	pinned(t, wirev1.OperationRequest{Id: 3, Request: wirev1.Wait{SessionId: "s", Request: WaitRequestToWire("1", codemode.WaitRequest{YieldTimeMs: 5})}},
		`{"type":"operation/request","id":3,"request":{"method":"session/wait","sessionId":"s","request":{"cell_id":"1","yield_time_ms":5}}}`)
	pinned(t, wirev1.OperationRequest{Id: 1, Request: wirev1.OpenSession{SessionId: "session-1", CellExecutionLimits: SessionLimitsToWire(codemode.SessionCellExecutionLimits{MaxYieldTimeMs: ptr(uint64(250)), MaxHeapSizeBytes: ptr(uint64(16777216))})}},
		`{"type":"operation/request","id":1,"request":{"method":"session/open","sessionId":"session-1","cellExecutionLimits":{"maxYieldTimeMs":250,"maxHeapSizeBytes":16777216}}}`)
}

func TestHostToClientV1VariantsArePinned(t *testing.T) {
	call := codemode.NestedToolCall{CellID: "cell-1", RuntimeToolCallID: "runtime-call-1", ToolName: codemode.ToolName{Name: "freeform_tool", Namespace: ptr("mcp__sample__")}, ToolKind: codemode.ToolKindFreeform, Input: []byte(`{"value":1}`)}
	pinned(t, wirev1.DelegateRequestMessage{Id: 9, SessionId: "session-1", Request: wirev1.ToolInvoke{Invocation: NestedToolCallToWire(call)}},
		`{"type":"delegate/request","id":9,"sessionId":"session-1","request":{"type":"tool/invoke","invocation":{"cell_id":"cell-1","runtime_tool_call_id":"runtime-call-1","tool_name":{"name":"freeform_tool","namespace":"mcp__sample__"},"tool_kind":"freeform","input":{"value":1}}}}`)
	missing := codemode.WaitOutcome{Missing: true, Response: codemode.RuntimeResponse{Kind: codemode.Result, CellID: "missing-cell", ErrorText: ptr("cell not found")}}
	o, err := WaitOutcomeToWire(missing, "missing-cell", wirev1.GenerationBaseline)
	if err != nil {
		t.Fatal(err)
	}
	pinned(t, wirev1.OperationResponse{Id: 4, Result: wirev1.HostResponseOk{Value: wirev1.WaitCompleted{Outcome: o}}},
		`{"type":"operation/response","id":4,"result":{"status":"ok","value":{"type":"wait/completed","outcome":{"MissingCell":{"Result":{"cell_id":"missing-cell","content_items":[],"error_text":"cell not found"}}}}}}`)
	items := []codemode.ContentItem{codemode.InputText{Text: "t"}, codemode.InputImage{ImageURL: "data:image/png;base64,AA", Detail: codemode.ImageDetailLow}, codemode.InputImage{ImageURL: "data:x"}, codemode.InputAudio{AudioURL: "data:audio/wav;base64,AA"}}
	y, err := RuntimeResponseToWire(codemode.RuntimeResponse{Kind: codemode.Yielded, CellID: "1", ContentItems: items}, "1", wirev1.GenerationBaseline)
	if err != nil {
		t.Fatal(err)
	}
	pinned(t, wirev1.InitialResponse{Id: 2, Result: wirev1.RuntimeResponseOk{Value: y}},
		`{"type":"execute/initialResponse","id":2,"result":{"status":"ok","value":{"Yielded":{"cell_id":"1","content_items":[{"type":"input_text","text":"t"},{"type":"input_image","image_url":"data:image/png;base64,AA","detail":"low"},{"type":"input_image","image_url":"data:x"},{"type":"input_audio","audio_url":"data:audio/wav;base64,AA"}]}}}}`)
	back := RuntimeResponseFromWire(y)
	if back.Kind != codemode.Yielded || len(back.ContentItems) != 4 || back.ContentItems[1] != items[1] || back.HostDuration != nil {
		t.Fatalf("round trip: %+v", back)
	}
}

// The host-duration generation (docs/protocol/v1.md#host-duration-g2): timed output round-trips, untimed output is refused
// (Codex's stdio_encoding_rejects_untimed_runtime_output and
// code_mode_host_duration_survives_runtime_and_stdio_serialization).
func TestCodeModeHostDurationSurvivesRuntimeAndWireSerialization(t *testing.T) {
	d := 123 * time.Nanosecond
	r := codemode.RuntimeResponse{Kind: codemode.Result, CellID: "1", ContentItems: []codemode.ContentItem{}, HostDuration: &d}
	w, err := RuntimeResponseToWire(r, "1", wirev1.GenerationHostDuration)
	if err != nil {
		t.Fatal(err)
	}
	data := wirev1.Marshal(w)
	if string(data) != `{"Result":{"cell_id":"1","content_items":[],"error_text":null,"code_mode_host_duration_ns":123}}` {
		t.Fatalf("encoded %s", data)
	}
	decoded, err := wirev1.DecodeWireRuntimeResponseFor(wirev1.GenerationHostDuration, data)
	if err != nil {
		t.Fatal(err)
	}
	if got := RuntimeResponseFromWire(decoded).HostDuration; got == nil || *got != d {
		t.Fatalf("duration after the wire: %v", got)
	}
	if _, err := wirev1.DecodeWireRuntimeResponse(data); err == nil || err.Error() != "Result: unknown field `code_mode_host_duration_ns`, expected one of `cell_id`, `content_items`, `error_text`" {
		t.Fatalf("baseline decode of timed output: %v", err)
	}
	huge := uint64(math.MaxUint64)
	if got := hostDuration(&huge); *got != time.Duration(math.MaxInt64) {
		t.Fatalf("saturation: %v", *got)
	}
}

func TestStdioEncodingRejectsUntimedRuntimeOutput(t *testing.T) {
	_, err := RuntimeResponseToWire(codemode.RuntimeResponse{Kind: codemode.Yielded, CellID: "1"}, "1", wirev1.GenerationHostDuration)
	if !errors.Is(err, ErrMissingHostDuration) || err.Error() != "code-mode response is missing host duration" {
		t.Fatalf("err = %v", err)
	}
	if _, err := RuntimeResponseToWire(codemode.RuntimeResponse{Kind: codemode.Yielded, CellID: "1"}, "1", wirev1.GenerationBaseline); err != nil {
		t.Fatalf("baseline: %v", err)
	}
}

func TestExecuteRequestIntegerBoundsAreEnforced(t *testing.T) {
	if _, err := ExecuteRequestToWire(codemode.ExecuteRequest{MaxOutputTokens: ptr(math.MaxInt32 + 1)}); !errors.Is(err, ErrIntegerRange) {
		t.Fatalf("max_output_tokens > i32::MAX: %v", err)
	}
	if w, err := ExecuteRequestToWire(codemode.ExecuteRequest{MaxOutputTokens: ptr(math.MaxInt32)}); err != nil || *w.MaxOutputTokens != math.MaxInt32 {
		t.Fatalf("i32::MAX: %v", err)
	}
	_, err := ExecuteRequestFromWire(wirev1.WireExecuteRequest{MaxOutputTokens: ptr(int32(-1))})
	if err == nil || "invalid code-mode execute request: "+err.Error() != "invalid code-mode execute request: out of range integral type conversion attempted" {
		t.Fatalf("wire -1: %v", err)
	}
}

func TestSessionCellExecutionLimitsConvertBetweenDomainAndWire(t *testing.T) {
	if SessionLimitsToWire(codemode.SessionCellExecutionLimits{}) != nil {
		t.Fatal("default limits are sent")
	}
	l := codemode.SessionCellExecutionLimits{MaxHeapSizeBytes: ptr(uint64(math.MaxUint64))}
	back := SessionLimitsFromWire(SessionLimitsToWire(l))
	if back.MaxYieldTimeMs != nil || *back.MaxHeapSizeBytes != math.MaxUint64 {
		t.Fatalf("round trip: %+v", back)
	}
	if !SessionLimitsFromWire(nil).IsDefault() {
		t.Fatal("absent limits are not default")
	}
}

func TestEveryNestedV1ObjectRejectsUnknownFields(t *testing.T) {
	// "unexpected": true at each nesting point of a message; every one is refused.
	docs := []struct{ kind, json string }{
		{"ClientToHost", `{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":[],"optionalCapabilities":[],"unexpected":true}`},
		{"ClientToHost", `{"type":"operation/request","id":1,"request":{"method":"session/open","sessionId":"s","unexpected":true}}`},
		{"ClientToHost", `{"type":"operation/request","id":1,"request":{"method":"session/open","sessionId":"s","cellExecutionLimits":{"unexpected":true}}}`},
		{"ClientToHost", `{"type":"operation/request","id":1,"request":{"method":"session/execute","sessionId":"s","request":{"tool_call_id":"c","enabled_tools":[],"source":"","unexpected":true}}}`},
		{"ClientToHost", `{"type":"operation/request","id":1,"request":{"method":"session/execute","sessionId":"s","request":{"tool_call_id":"c","enabled_tools":[{"name":"n","tool_name":{"name":"n","unexpected":true},"description":"","kind":"function"}],"source":""}}}`},
		{"ClientToHost", `{"type":"delegate/response","id":1,"result":{"status":"ok","value":{"type":"tool/result","result":1},"unexpected":true}}`},
		{"HostToClient", `{"type":"connection/ready","selectedVersion":1,"capabilities":[],"unexpected":true}`},
		{"HostToClient", `{"type":"connection/rejected","reason":{"type":"invalidHello","message":"m","unexpected":true}}`},
		{"HostToClient", `{"type":"execute/initialResponse","id":1,"result":{"status":"ok","value":{"Yielded":{"cell_id":"1","content_items":[],"unexpected":true}}}}`},
		{"HostToClient", `{"type":"execute/initialResponse","id":1,"result":{"status":"ok","value":{"Yielded":{"cell_id":"1","content_items":[{"type":"input_text","text":"t","unexpected":true}]}}}}`},
		{"HostToClient", `{"type":"delegate/request","id":1,"sessionId":"s","request":{"type":"tool/invoke","invocation":{"cell_id":"1","runtime_tool_call_id":"t","tool_name":{"name":"n","namespace":null},"tool_kind":"function","input":null,"unexpected":true}}}`},
	}
	for _, d := range docs {
		_, _, err := wirev1.DecodeNamed(d.kind, []byte(d.json))
		if err == nil || !strings.Contains(err.Error(), "unknown field `unexpected`") {
			t.Errorf("%s: %v", d.json, err)
		}
	}
}

func TestDualWebsocketHelloPreservesThePairingToken(t *testing.T) {
	hello := wirev1.HostHello{SelectedVersion: 1, Capabilities: wirev1.CapabilitySet{"session-cell-execution-resource-limits", "dual-websocket-v1"}, BulkConnectionToken: ptr("0b9a4d3e-4f7e-4a8f-9c1d-2e3f4a5b6c7d")}
	data := wirev1.Marshal(hello)
	const want = `{"type":"connection/ready","selectedVersion":1,"capabilities":["dual-websocket-v1","session-cell-execution-resource-limits"],"bulkConnectionToken":"0b9a4d3e-4f7e-4a8f-9c1d-2e3f4a5b6c7d"}`
	if string(data) != want {
		t.Fatalf("encoded %s", data)
	}
	back, err := wirev1.DecodeHostToClient(data)
	if err != nil || *back.(wirev1.HostHello).BulkConnectionToken != *hello.BulkConnectionToken {
		t.Fatalf("decoded %+v, %v", back, err)
	}
}

// TestSessionCellExecutionLimitsRejectHeapSizesThatExceedUsize is Codex's
// session_cell_execution_limits_reject_heap_sizes_that_exceed_usize. In Codex the domain keeps
// the heap size as usize and the wire as u64, so on a 32-bit target a wire value above
// u32::MAX fails to convert. Go's domain keeps it as uint64, the wire's own width, on every
// target: nothing narrows between them. The counterpart is the boundary that does exist: every
// u64, u64::MAX included, converts both ways unchanged, and a heap size beyond u64 is refused
// where it enters, by the decoder, with serde's text.
func TestSessionCellExecutionLimitsRejectHeapSizesThatExceedUsize(t *testing.T) {
	for _, heap := range []uint64{math.MaxUint32 + 1, math.MaxUint64} {
		w := SessionLimitsToWire(codemode.SessionCellExecutionLimits{MaxHeapSizeBytes: ptr(heap)})
		decoded, err := wirev1.DecodeWireSessionCellExecutionLimits(wirev1.Marshal(w))
		if err != nil {
			t.Fatalf("heap %d: %v", heap, err)
		}
		if back := SessionLimitsFromWire(&decoded); back.MaxHeapSizeBytes == nil || *back.MaxHeapSizeBytes != heap {
			t.Fatalf("heap %d came back as %v", heap, back.MaxHeapSizeBytes)
		}
	}
	open := `{"type":"operation/request","id":1,"request":{"method":"session/open","sessionId":"s","cellExecutionLimits":{"maxHeapSizeBytes":18446744073709551616}}}`
	_, err := wirev1.DecodeClientToHost([]byte(open))
	if err == nil || err.Error() != "request.cellExecutionLimits.maxHeapSizeBytes: invalid value: integer `18446744073709551616`, expected u64" {
		t.Fatalf("heap size beyond u64: %v", err)
	}
}
