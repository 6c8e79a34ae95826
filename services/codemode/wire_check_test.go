package main

import (
	"bytes"
	"strings"
	"testing"
)

// runWireCheck drives the real command through dispatch.
func runWireCheck(t *testing.T, input string) []string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"wire", "check"}, strings.NewReader(input), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr.String())
	}
	return strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
}

func TestWireCheckAnswersEveryLineInOrder(t *testing.T) {
	cases := []struct{ in, want string }{
		// Canonical re-encoding: tag first, sets sorted, serde escaping (no \u003c for <).
		{`{"kind":"v1:ClientToHost","json":{"id":2,"type":"operation/cancel"}}`,
			`{"ok":true,"value":{"type":"operation/cancel","id":2}}`},
		{`{"kind":"v1:ClientToHost","json":{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":[],"optionalCapabilities":["session-cell-execution-resource-limits","dual-websocket-v1"]}}`,
			`{"ok":true,"value":{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":[],"optionalCapabilities":["dual-websocket-v1","session-cell-execution-resource-limits"]}}`},
		{`{"kind":"v1:WireToolName","json":{"name":"<a&b>"}}`,
			`{"ok":true,"value":{"name":"<a&b>","namespace":null}}`},
		// Decodes, but a Codex host refuses it.
		{`{"kind":"v1:WireExecuteRequest","json":{"tool_call_id":"c","enabled_tools":[],"source":"","max_output_tokens":-1}}`,
			`{"ok":false,"error":"invalid code-mode execute request: out of range integral type conversion attempted"}`},
		{`{"kind":"v1:ClientToHost","json":{"type":"operation/request","id":1,"request":{"method":"session/execute","sessionId":"s","request":{"tool_call_id":"c","enabled_tools":[],"source":"","max_output_tokens":-5}}}}`,
			`{"ok":false,"error":"invalid code-mode execute request: out of range integral type conversion attempted"}`},
		{`{"kind":"v1:WireExecuteRequest","json":{"tool_call_id":"c","enabled_tools":[],"source":"","max_output_tokens":2147483648}}`,
			"{\"ok\":false,\"error\":\"max_output_tokens: invalid value: integer `2147483648`, expected i32\"}"},
		{`{"kind":"v1:HostToClient","json":{"type":"connection/ready","selectedVersion":1,"capabilities":["dual-websocket-v1"]}}`,
			`{"ok":false,"error":"code-mode host advertised dual websockets without a pairing token"}`},
		{`{"kind":"v1:HostToClient","json":{"type":"connection/ready","selectedVersion":1,"capabilities":[],"bulkConnectionToken":"t"}}`,
			`{"ok":false,"error":"code-mode host returned an unexpected bulk pairing token"}`},
		{`{"kind":"v1:WireRuntimeResponse","json":{"yielded":{"cell_id":"1","content_items":[]}}}`,
			"{\"ok\":false,\"error\":\"unknown variant `yielded`, expected one of `Yielded`, `Terminated`, `Result`\"}"},
		{`{"kind":"v1:HostRequest","json":{"method":"session/wait","sessionId":"s","request":{"cell_id":"1","yield_time_ms":1,"unexpected":true}}}`,
			"{\"ok\":false,\"error\":\"request: unknown field `unexpected`, expected `cell_id` or `yield_time_ms`\"}"},
		{`{"kind":"v1:ClientToHost","json":{"type":"operation/cancel","id":1,"id":2}}`,
			"{\"ok\":false,\"error\":\"duplicate field `id`\"}"},
		{`{"kind":"frame","hex":"0b0000007b2276616c7565223a317d"}`, `{"ok":true,"value":{"value":1}}`},
		// One hex string is one WebSocket binary message: nothing is "partial", everything wrong is
		// invalid data.
		{`{"kind":"frame","hex":""}`, `{"ok":false,"kind":"invalid_data","error":"code-mode IPC frame is missing its length prefix"}`},
		{`{"kind":"frame","hex":"0100"}`, `{"ok":false,"kind":"invalid_data","error":"code-mode IPC frame is missing its length prefix"}`},
		{`{"kind":"frame","hex":"030000007b"}`, `{"ok":false,"kind":"invalid_data","error":"code-mode IPC frame declares 3 payload bytes but contains 1"}`},
		{`{"kind":"frame","hex":"01000004"}`, `{"ok":false,"kind":"invalid_data","error":"code-mode IPC frame length 67108865 exceeds 67108864 bytes"}`},
		{`{"kind":"frame","hex":"010000007b"}`, `{"ok":false,"kind":"invalid_data","error":"failed to decode code-mode IPC frame: EOF while parsing an object at line 1 column 1"}`},
		{`{"kind":"frame","hex":"010000007b7d"}`, `{"ok":false,"kind":"invalid_data","error":"code-mode IPC frame declares 1 payload bytes but contains 2"}`},
		// Both Codex wire generations (docs/protocol/v1.md#wire-generations): the baseline (default) refuses the host
		// duration, host-duration requires it, and each re-encodes its own shape.
		{`{"kind":"v1:WireRuntimeResponse","json":{"Result":{"cell_id":"1","content_items":[],"error_text":null}}}`,
			`{"ok":true,"value":{"Result":{"cell_id":"1","content_items":[],"error_text":null}}}`},
		{`{"kind":"v1:WireRuntimeResponse","json":{"Result":{"cell_id":"1","content_items":[],"error_text":null,"code_mode_host_duration_ns":123}}}`,
			"{\"ok\":false,\"error\":\"Result: unknown field `code_mode_host_duration_ns`, expected one of `cell_id`, `content_items`, `error_text`\"}"},
		{`{"kind":"v1:WireRuntimeResponse","generation":"host-duration","json":{"Result":{"cell_id":"1","content_items":[],"error_text":null,"code_mode_host_duration_ns":123}}}`,
			`{"ok":true,"value":{"Result":{"cell_id":"1","content_items":[],"error_text":null,"code_mode_host_duration_ns":123}}}`},
		{`{"kind":"v1:HostToClient","generation":"host-duration","json":{"type":"execute/initialResponse","id":2,"result":{"status":"ok","value":{"Yielded":{"cell_id":"1","content_items":[]}}}}}`,
			"{\"ok\":false,\"error\":\"result.value.Yielded: missing field `code_mode_host_duration_ns`\"}"},
		{`{"kind":"v1:HostToClient","generation":"host-duration","json":{"type":"cell/closed","sessionId":"s","cellId":"1"}}`,
			`{"ok":true,"value":{"type":"cell/closed","sessionId":"s","cellId":"1"}}`},
		{`{"kind":"v1:WireRuntimeResponse","generation":"newest","json":{}}`,
			`{"ok":false,"error":"unknown V1 wire generation \"newest\" (known: baseline, host-duration, bounded-output)"}`},
		{`{"kind":"v1:WireRuntimeResponse","generation":2,"json":{}}`,
			`{"ok":false,"error":"\"generation\" of a V1 line must be a string (\"baseline\", \"host-duration\" or \"bounded-output\"), not 2"}`},
		// Codex 0.169's generation: operation/yield, outputTruncation and result_buffered_for_ns.
		{`{"kind":"v1:ClientToHost","generation":"bounded-output","json":{"type":"operation/yield","id":3}}`,
			`{"ok":true,"value":{"type":"operation/yield","id":3}}`},
		{`{"kind":"v1:ClientToHost","generation":"host-duration","json":{"type":"operation/yield","id":3}}`,
			"{\"ok\":false,\"error\":\"type: unknown variant `operation/yield`, expected one of `connection/hello`, `operation/request`, `operation/cancel`, `delegate/response`\"}"},
		{`{"kind":"v1:HostRequest","generation":"bounded-output","json":{"method":"session/open","sessionId":"s","outputTruncation":{"server":null}}}`,
			`{"ok":true,"value":{"method":"session/open","sessionId":"s","outputTruncation":"server"}}`},
		{`{"kind":"v1:WireRuntimeResponse","generation":"bounded-output","json":{"Result":{"cell_id":"1","content_items":[],"error_text":null,"code_mode_host_duration_ns":123}}}`,
			"{\"ok\":false,\"error\":\"Result: missing field `result_buffered_for_ns`\"}"},
		// Malformed lines answer ok:false and do not stop the stream.
		{`not json`, `{"ok":false,"error":"malformed input line: invalid character 'o' in literal null (expecting 'u')"}`},
		{`{"kind":"v1:Nope","json":{}}`, `{"ok":false,"error":"unknown V1 type \"Nope\" (known: ClientToHost, HostToClient, HostRequest, HostResponse, DelegateRequest, DelegateResponse, WireExecuteRequest, WireToolDefinition, WireToolName, WireWaitRequest, WireSessionCellExecutionLimits, WireContentItem, WireRuntimeResponse, WireWaitOutcome, WireNestedToolCall)"}`},
		{`{"kind":"v2:HostHello","json":"x"}`, `{"ok":false,"error":"unknown kind \"v2:HostHello\""}`},
		// protojson accepts snake_case input and re-encodes camelCase with 64-bit ints as strings.
		{`{"kind":"grpc:OpenSessionRequest","json":{"cell_execution_limits":{"max_yield_time_ms":250}}}`,
			`{"ok":true,"value":{"cellExecutionLimits":{"maxYieldTimeMs":"250"}}}`},
		{`{"kind":"grpc:NoSuchMessage","json":{}}`, `{"ok":false,"error":"unknown gRPC message \"NoSuchMessage\" in codex.code_mode.v1"}`},
	}
	var in strings.Builder
	for _, c := range cases {
		in.WriteString(c.in + "\n")
	}
	got := runWireCheck(t, in.String())
	if len(got) != len(cases) {
		t.Fatalf("%d output lines for %d inputs:\n%s", len(got), len(cases), strings.Join(got, "\n"))
	}
	for i, c := range cases {
		if got[i] != c.want {
			t.Errorf("line %d: %s\n got %s\nwant %s", i+1, c.in, got[i], c.want)
		}
	}
}

func TestWireCheckRejectsOtherSubcommands(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"wire", "lint"}, strings.NewReader(""), &stdout, &stderr); code != 2 {
		t.Fatalf("exit %d", code)
	}
}
