// Hand-written tests of the generated V1 package gen/go/wirev1. They live here, not in gen/,
// because gen/ holds generated code only.
package wirev1_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/gen/go/wirev1"
)

func ptr[T any](v T) *T { return &v }

func mustDecodeClient(t *testing.T, s string) wirev1.ClientToHost {
	t.Helper()
	m, err := wirev1.DecodeClientToHost([]byte(s))
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return m
}

func mustDecodeHost(t *testing.T, s string) wirev1.HostToClient {
	t.Helper()
	m, err := wirev1.DecodeHostToClient([]byte(s))
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return m
}

// TestMessageFamiliesUseDedicatedTransportLanes is Codex's message_families_use_dedicated_transport_lanes.
func TestMessageFamiliesUseDedicatedTransportLanes(t *testing.T) {
	big := strings.Repeat("x", 128*1024)
	cases := []struct {
		msg  wirev1.Message
		want wirev1.Lane
	}{
		{mustDecodeClient(t, `{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":[],"optionalCapabilities":[]}`), wirev1.LaneControl},
		{mustDecodeClient(t, `{"type":"operation/request","id":1,"request":{"method":"session/shutdown","sessionId":"s"}}`), wirev1.LaneControl},
		{mustDecodeClient(t, `{"type":"operation/cancel","id":1}`), wirev1.LaneControl},
		{mustDecodeClient(t, `{"type":"delegate/response","id":1,"result":{"status":"ok","value":{"type":"notification/delivered"}}}`), wirev1.LaneControl},
		{mustDecodeClient(t, `{"type":"delegate/response","id":1,"result":{"status":"ok","value":{"type":"tool/result","result":1}}}`), wirev1.LaneBulk},
		{mustDecodeClient(t, `{"type":"delegate/response","id":1,"result":{"status":"error","message":"m"}}`), wirev1.LaneBulk},
		{mustDecodeHost(t, `{"type":"connection/ready","selectedVersion":1,"capabilities":[]}`), wirev1.LaneControl},
		{mustDecodeHost(t, `{"type":"connection/rejected","reason":{"type":"invalidHello","message":"m"}}`), wirev1.LaneControl},
		{mustDecodeHost(t, `{"type":"operation/response","id":1,"result":{"status":"error","message":"`+big+`"}}`), wirev1.LaneControl},
		{mustDecodeHost(t, `{"type":"execute/initialResponse","id":1,"result":{"status":"error","message":"m"}}`), wirev1.LaneControl},
		{mustDecodeHost(t, `{"type":"delegate/request","id":1,"sessionId":"s","request":{"type":"notification/send","callId":"c","cellId":"1","text":"t"}}`), wirev1.LaneControl},
		{mustDecodeHost(t, `{"type":"delegate/request","id":1,"sessionId":"s","request":{"type":"tool/invoke","invocation":{"cell_id":"1","runtime_tool_call_id":"r","tool_name":{"name":"t","namespace":null},"tool_kind":"function","input":null}}}`), wirev1.LaneBulk},
		{mustDecodeHost(t, `{"type":"delegate/cancel","id":1}`), wirev1.LaneBulk},
		{mustDecodeHost(t, `{"type":"cell/closed","sessionId":"s","cellId":"1"}`), wirev1.LaneControl},
		{wirev1.WireToolName{Name: "not an envelope"}, wirev1.LaneNone},
	}
	for _, c := range cases {
		if got := wirev1.LaneOf(c.msg); got != c.want {
			t.Errorf("%.120s: lane %s, want %s", wirev1.Marshal(c.msg), got, c.want)
		}
	}
}

// TestGoValuesEncodeToThePinnedExecuteRequest builds the pinned execute request of docs/protocol/v1.md#payloads in Go.
func TestGoValuesEncodeToThePinnedExecuteRequest(t *testing.T) {
	msg := wirev1.OperationRequest{Id: 2, Request: wirev1.Execute{SessionId: "session-1", Request: wirev1.WireExecuteRequest{
		ToolCallId: "call-1",
		EnabledTools: []wirev1.WireToolDefinition{
			{Name: "function_tool", ToolName: wirev1.WireToolName{Name: "function_tool"}, Description: "function tool", Kind: "function", InputSchema: json.RawMessage(`{"type":"object"}`)},
			{Name: "freeform_tool", ToolName: wirev1.WireToolName{Name: "freeform_tool", Namespace: ptr("mcp__sample__")}, Description: "freeform tool", Kind: "freeform", OutputSchema: json.RawMessage(`{"type":"string"}`)},
		},
		Source:          "text('hello');",
		YieldTimeMs:     ptr[uint64](25),
		MaxOutputTokens: ptr[int32](100),
	}}}
	const want = `{"type":"operation/request","id":2,"request":{"method":"session/execute","sessionId":"session-1","request":{"tool_call_id":"call-1","enabled_tools":[{"name":"function_tool","tool_name":{"name":"function_tool","namespace":null},"description":"function tool","kind":"function","input_schema":{"type":"object"},"output_schema":null},{"name":"freeform_tool","tool_name":{"name":"freeform_tool","namespace":"mcp__sample__"},"description":"freeform tool","kind":"freeform","input_schema":null,"output_schema":{"type":"string"}}],"source":"text('hello');","yield_time_ms":25,"max_output_tokens":100}}}`
	if got := string(wirev1.Marshal(msg)); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestOpenSessionSerializesOptionalCellExecutionLimits(t *testing.T) {
	cases := map[string]wirev1.OpenSession{
		`{"method":"session/open","sessionId":"s","cellExecutionLimits":{"maxYieldTimeMs":250,"maxHeapSizeBytes":16777216}}`: {SessionId: "s", CellExecutionLimits: &wirev1.WireSessionCellExecutionLimits{MaxYieldTimeMs: ptr[uint64](250), MaxHeapSizeBytes: ptr[uint64](16777216)}},
		`{"method":"session/open","sessionId":"s","cellExecutionLimits":{"maxHeapSizeBytes":1}}`:                             {SessionId: "s", CellExecutionLimits: &wirev1.WireSessionCellExecutionLimits{MaxHeapSizeBytes: ptr[uint64](1)}},
		`{"method":"session/open","sessionId":"s"}`:                                                                          {SessionId: "s"},
	}
	for want, v := range cases {
		if got := string(wirev1.Marshal(v)); got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
}

// TestStringsEscapeLikeSerdeJSON pins the escaping differences from encoding/json.
func TestStringsEscapeLikeSerdeJSON(t *testing.T) {
	v := wirev1.InputText{Text: "<a href=\"x\">&</a>\u2028\u2029\x00\x1f\t\n\r\b\f\\/é😀"}
	want := `{"type":"input_text","text":"<a href=\"x\">&</a>` + "\u2028\u2029" + `\u0000\u001f\t\n\r\b\f\\/é😀"}`
	got := string(wirev1.Marshal(v))
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	back, err := wirev1.DecodeWireContentItem([]byte(got))
	if err != nil || back != wirev1.WireContentItem(v) {
		t.Fatalf("round trip: %#v, %v", back, err)
	}
	// Escapes on input decode to the same text, and re-encode canonically.
	in := `{"type":"input_text","text":"\u003c\/\ud83d\ude00"}`
	m, err := wirev1.DecodeWireContentItem([]byte(in))
	if err != nil || string(wirev1.Marshal(m)) != `{"type":"input_text","text":"</😀"}` {
		t.Fatalf("got %s, %v", wirev1.Marshal(m), err)
	}
}

func TestDecodeRejections(t *testing.T) {
	deep := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	cases := []struct{ typ, in, want string }{
		{"RequestId", "9223372036854775807", ""},
		{"RequestId", "-9223372036854775808", ""},
		{"RequestId", "-0", ""},
		{"RequestId", "9223372036854775808", "invalid value: integer `9223372036854775808`, expected i64"},
		{"RequestId", "1E2", "invalid type: floating point `1E2`, expected i64"},
		{"RequestId", "01", "invalid number"},
		{"RequestId", "true", "invalid type: boolean `true`, expected i64"},
		{"WireWaitRequest", `{"cell_id":"1","yield_time_ms":18446744073709551615}`, ""},
		{"WireWaitRequest", `{"cell_id":"1","yield_time_ms":-0}`, ""},
		{"WireWaitRequest", `{"cell_id":1,"yield_time_ms":1}`, "cell_id: invalid type: integer `1`, expected a string"},
		{"WireWaitRequest", "[]", "invalid type: array, expected struct WireWaitRequest"},
		{"WireNestedToolCall", `{"cell_id":"c","runtime_tool_call_id":"r","tool_name":{"name":"t","namespace":null},"tool_kind":"function","input":` + deep + `}`, "recursion limit exceeded"},
		{"WireToolName", "{\"name\":\"\xff\",\"namespace\":null}", "invalid unicode in JSON document"},
		{"WireToolName", `{"name":"\udc00","namespace":null}`, "lone leading surrogate"},
		{"WireToolName", `{"name":"a","namespace":null}  `, ""},
		{"WireToolName", `{"name":"a","namespace":null}{}`, "trailing characters"},
		{"WireToolName", ``, "EOF while parsing a value"},
		{"WireToolName", `{"name":null,"namespace":null}`, "name: invalid type: null, expected a string"},
		{"HostResponse", `{"type":7}`, "type: invalid type: integer `7`, expected variant identifier"},
		{"WireWaitOutcome", `{"LiveCell":{"Terminated":{"cell_id":"1","content_items":[{"type":"input_text"}]}}}`, "LiveCell.Terminated.content_items[0]: missing field `text`"},
		{"DelegateResponse", `{"type":"notification/delivered","extra":{"deep":[1]}}`, ""},
		{"DelegateResponse", `{"type":"notification/delivered","a":1,"a":2}`, "duplicate field `a`"},
	}
	for _, c := range cases {
		_, ok, err := wirev1.DecodeNamed(c.typ, []byte(c.in))
		if !ok {
			t.Fatalf("unknown type %s", c.typ)
		}
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %.60s: unexpected error %v", c.typ, c.in, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %.60s: error %v, want %q", c.typ, c.in, err, c.want)
		}
	}
}

func TestDecodeErrorCarriesThePath(t *testing.T) {
	_, err := wirev1.DecodeClientToHost([]byte(`{"type":"operation/request","id":1,"request":{"method":"session/wait","sessionId":"s","request":{"cell_id":"1","yield_time_ms":1.5}}}`))
	var de *wirev1.DecodeError
	if !errors.As(err, &de) || de.Path != "request.request.yield_time_ms" || de.Msg != "invalid type: floating point `1.5`, expected u64" {
		t.Fatalf("err = %#v", err)
	}
}

func TestArbitraryJSONValuesArePreserved(t *testing.T) {
	in := `{"type":"tool/result","result":{"z":1,"a":[1.50,-0,1e400,"<&>",null,true,{}],"m":{"b":{"c":[]}}}}`
	m, err := wirev1.DecodeDelegateResponse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(wirev1.Marshal(m)); got != in {
		t.Fatalf("got %s", got)
	}
	spaced := "{ \"type\" : \"tool/result\" , \"result\" : { \"k\" : [ 1 , 2 ] } }"
	m, _ = wirev1.DecodeDelegateResponse([]byte(spaced))
	if got := string(wirev1.Marshal(m)); got != `{"type":"tool/result","result":{"k":[1,2]}}` {
		t.Fatalf("got %s", got)
	}
}

func TestSetsReencodeSortedWithoutMutatingTheValue(t *testing.T) {
	caps := wirev1.CapabilitySet{"session-cell-execution-resource-limits", "dual-websocket-v1"}
	if got := string(wirev1.Marshal(caps)); got != `["dual-websocket-v1","session-cell-execution-resource-limits"]` {
		t.Fatalf("got %s", got)
	}
	if caps[0] != "session-cell-execution-resource-limits" {
		t.Fatal("AppendJSON sorted the caller's slice")
	}
	if got := string(wirev1.Marshal(wirev1.SupportedProtocolVersions{3, 1, 2})); got != `[1,2,3]` {
		t.Fatalf("got %s", got)
	}
}

const pinnedExecute = `{"type":"operation/request","id":2,"request":{"method":"session/execute","sessionId":"session-1","request":{"tool_call_id":"call-1","enabled_tools":[{"name":"function_tool","tool_name":{"name":"function_tool","namespace":null},"description":"function tool","kind":"function","input_schema":{"type":"object"},"output_schema":null},{"name":"freeform_tool","tool_name":{"name":"freeform_tool","namespace":"mcp__sample__"},"description":"freeform tool","kind":"freeform","input_schema":null,"output_schema":{"type":"string"}}],"source":"text('hello');","yield_time_ms":25,"max_output_tokens":100}}}`

func BenchmarkDecodePinnedExecute(b *testing.B) {
	data := []byte(pinnedExecute)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := wirev1.DecodeClientToHost(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodePinnedExecute(b *testing.B) {
	m, err := wirev1.DecodeClientToHost([]byte(pinnedExecute))
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		buf = m.AppendJSON(buf[:0])
	}
}

// TestHandshakeV1VariantsArePinned is Codex's handshake_v1_variants_are_pinned: the hello, the
// ready and the three rejections encode to these exact bytes and decode back to equal values.
func TestHandshakeV1VariantsArePinned(t *testing.T) {
	cases := []struct {
		msg  wirev1.Message
		want string
	}{
		{wirev1.ClientHello{SupportedVersions: wirev1.SupportedProtocolVersions{1}, RequiredCapabilities: wirev1.CapabilitySet{"required"}, OptionalCapabilities: wirev1.CapabilitySet{"optional"}},
			`{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":["required"],"optionalCapabilities":["optional"]}`},
		{wirev1.HostHello{SelectedVersion: 1, Capabilities: wirev1.CapabilitySet{"required"}},
			`{"type":"connection/ready","selectedVersion":1,"capabilities":["required"]}`},
		{wirev1.HandshakeRejected{Reason: wirev1.NoCompatibleVersion{SupportedVersions: wirev1.SupportedProtocolVersions{1}}},
			`{"type":"connection/rejected","reason":{"type":"noCompatibleVersion","supportedVersions":[1]}}`},
		{wirev1.HandshakeRejected{Reason: wirev1.MissingRequiredCapability{Capability: "required"}},
			`{"type":"connection/rejected","reason":{"type":"missingRequiredCapability","capability":"required"}}`},
		{wirev1.HandshakeRejected{Reason: wirev1.InvalidHello{Message: "invalid hello"}},
			`{"type":"connection/rejected","reason":{"type":"invalidHello","message":"invalid hello"}}`},
	}
	for _, c := range cases {
		if got := string(wirev1.Marshal(c.msg)); got != c.want {
			t.Errorf("encoded\n got %s\nwant %s", got, c.want)
		}
		var back wirev1.Message
		var err error
		if _, ok := c.msg.(wirev1.ClientToHost); ok {
			back, err = wirev1.DecodeClientToHost([]byte(c.want))
		} else {
			back, err = wirev1.DecodeHostToClient([]byte(c.want))
		}
		if err != nil || !reflect.DeepEqual(back, c.msg) {
			t.Errorf("%s decoded to %#v, %v", c.want, back, err)
		}
	}
}

// TestInvalidProtocolStatesCannotBeConstructedOrDecoded is Codex's
// invalid_protocol_states_cannot_be_constructed_or_decoded. Codex's identifier, version and set
// types have checked constructors, so an invalid value cannot exist in Rust. The generated Go
// types are plain strings, integers and slices: a Go program can build any of these states.
// The Go counterpart is that none of them survives the wire: each, encoded as a Go value would
// be, is refused by the decoder with Codex's text, and the valid neighbour (versions [2,1]) is
// accepted and re-encodes sorted, the order Codex's set type gives it on the wire, so a peer
// comparing frames sees the same bytes.
func TestInvalidProtocolStatesCannotBeConstructedOrDecoded(t *testing.T) {
	hello := func(versions wirev1.SupportedProtocolVersions, required, optional wirev1.CapabilitySet) wirev1.Message {
		return wirev1.ClientHello{SupportedVersions: versions, RequiredCapabilities: required, OptionalCapabilities: optional}
	}
	one := wirev1.SupportedProtocolVersions{1}
	none := wirev1.CapabilitySet{}
	cases := []struct {
		name string
		typ  string
		msg  wirev1.Message
		want string
	}{
		{"empty_session_id", "SessionId", wirev1.SessionId(""), "identifier must not be empty"},
		{"blank_capability", "Capability", wirev1.Capability("   "), "identifier must not be empty"},
		{"version_zero", "ProtocolVersion", wirev1.ProtocolVersion(0), "invalid value: integer `0`, expected a non-zero u32"},
		{"empty_versions", "SupportedProtocolVersions", wirev1.SupportedProtocolVersions{}, "at least one protocol version is required"},
		{"duplicate_versions", "SupportedProtocolVersions", wirev1.SupportedProtocolVersions{1, 1}, "duplicate protocol version 1"},
		{"duplicate_capability", "CapabilitySet", wirev1.CapabilitySet{"same", "same"}, "duplicate capability `same`"},
		// Codex's three JSON rejections, as whole messages.
		{"open_session_with_an_empty_session_id", "ClientToHost", wirev1.OperationRequest{Id: 1, Request: wirev1.OpenSession{SessionId: ""}}, "request.sessionId: identifier must not be empty"},
		{"hello_without_versions", "ClientToHost", hello(wirev1.SupportedProtocolVersions{}, none, none), "supportedVersions: at least one protocol version is required"},
		{"hello_with_an_overlapping_capability", "ClientToHost", hello(one, wirev1.CapabilitySet{"overlapping"}, wirev1.CapabilitySet{"overlapping"}), "capability `overlapping` cannot be both required and optional"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := wirev1.Marshal(c.msg)
			_, ok, err := wirev1.DecodeNamed(c.typ, data)
			if !ok {
				t.Fatalf("unknown type %s", c.typ)
			}
			if err == nil || err.Error() != c.want {
				t.Fatalf("decoding %s: %v, want %q", data, err, c.want)
			}
		})
	}
	t.Run("valid_versions_are_kept_as_a_sorted_set", func(t *testing.T) {
		m, err := wirev1.DecodeSupportedProtocolVersions([]byte(`[2,1]`))
		if err != nil || !slices.Contains(m, 1) || !slices.Contains(m, 2) || string(wirev1.Marshal(m)) != `[1,2]` {
			t.Fatalf("decoded %v (%s), %v", m, wirev1.Marshal(m), err)
		}
	})
}
