package wirev1_test

import (
	"strings"
	"testing"

	"github.com/codemodehq/codemode/gen/go/wirev1"
)

// The bounded-output generation (Codex 0.169, docs/protocol/v1.md#bounded-output-g3) beside the two before it:
// each message decodes in its generation and is refused, with serde's text, in the earlier ones.

var g2, g3 = wirev1.GenerationHostDuration, wirev1.GenerationBoundedOutput

func TestGenerationsAreOrderedOldestFirst(t *testing.T) {
	var names []string
	for _, g := range wirev1.Generations() {
		names = append(names, g.String())
	}
	if got := strings.Join(names, ","); got != "baseline,host-duration,bounded-output" {
		t.Fatalf("generations %s", got)
	}
}

func TestOperationYieldIsAVariantOfBoundedOutputOnly(t *testing.T) {
	m, err := wirev1.DecodeClientToHostFor(g3, []byte(`{"type":"operation/yield","id":7}`))
	if err != nil {
		t.Fatal(err)
	}
	if y, ok := m.(wirev1.OperationYield); !ok || y.Id != 7 || string(wirev1.Marshal(y)) != `{"type":"operation/yield","id":7}` {
		t.Fatalf("decoded %#v", m)
	}
	if lane := wirev1.LaneOf(m); lane != wirev1.LaneControl {
		t.Errorf("operation/yield travels on %v, want the control lane", lane)
	}
	cases := []struct {
		g    wirev1.Generation
		json string
		want string
	}{
		{g2, `{"type":"operation/yield","id":7}`, "type: unknown variant `operation/yield`, expected one of `connection/hello`, `operation/request`, `operation/cancel`, `delegate/response`"},
		{g3, `{"type":"bogus/x"}`, "type: unknown variant `bogus/x`, expected one of `connection/hello`, `operation/request`, `operation/cancel`, `operation/yield`, `delegate/response`"},
		{g3, `{"type":"operation/yield"}`, "missing field `id`"},
		{g3, `{"type":"operation/yield","id":1,"bogus":1}`, "unknown field `bogus`"},
	}
	for _, c := range cases {
		if _, err := wirev1.DecodeClientToHostFor(c.g, []byte(c.json)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %s: %v; want %q", c.g, c.json, err, c.want)
		}
	}
}

func TestSessionRequestsOfBoundedOutput(t *testing.T) {
	accepted := map[string]string{
		`{"method":"session/open","sessionId":"s","outputTruncation":"server"}`:                                       `{"method":"session/open","sessionId":"s","outputTruncation":"server"}`,
		`{"method":"session/open","sessionId":"s","outputTruncation":{"server":{}}}`:                                  `{"method":"session/open","sessionId":"s","outputTruncation":"server"}`,
		`{"method":"session/open","sessionId":"s","outputTruncation":null}`:                                           `{"method":"session/open","sessionId":"s"}`,
		`{"method":"session/wait","sessionId":"s","request":{"cell_id":"1","yield_time_ms":100},"maxOutputTokens":1}`: `{"method":"session/wait","sessionId":"s","request":{"cell_id":"1","yield_time_ms":100},"maxOutputTokens":1}`,
		`{"method":"session/terminate","sessionId":"s","cellId":"1","maxOutputTokens":null}`:                          `{"method":"session/terminate","sessionId":"s","cellId":"1"}`,
	}
	for in, want := range accepted {
		m, err := wirev1.DecodeHostRequestFor(g3, []byte(in))
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if got := string(wirev1.Marshal(m)); got != want {
			t.Errorf("%s re-encodes as %s, want %s", in, got, want)
		}
		if _, err := wirev1.DecodeHostRequestFor(g2, []byte(in)); err == nil || !strings.Contains(err.Error(), "unknown field") {
			t.Errorf("host-duration accepted %s: %v", in, err)
		}
	}
	refused := map[string]string{
		`{"method":"session/open","sessionId":"s","outputTruncation":{}}`:                                              "outputTruncation: invalid value: map, expected map with a single key",
		`{"method":"session/open","sessionId":"s","outputTruncation":1}`:                                               "outputTruncation: invalid type: integer `1`, expected string or map",
		`{"method":"session/open","sessionId":"s","outputTruncation":{"server":1}}`:                                    "outputTruncation.server: invalid type: integer `1`, expected unit",
		`{"method":"session/open","sessionId":"s","outputTruncation":"x"}`:                                             "unknown variant `x`, expected `client` or `server`",
		`{"method":"session/terminate","sessionId":"s","cellId":"1","maxOutputTokens":-1}`:                             "maxOutputTokens: invalid value: integer `-1`, expected usize",
		`{"method":"session/terminate","sessionId":"s","cellId":"1","maxOutputTokens":"x"}`:                            `maxOutputTokens: invalid type: string "x", expected usize`,
		`{"method":"session/wait","sessionId":"s","request":{"cell_id":"1","yield_time_ms":100},"maxOutputTokens":{}}`: "maxOutputTokens: invalid type: map, expected usize",
	}
	for in, want := range refused {
		if _, err := wirev1.DecodeHostRequestFor(g3, []byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", in, err, want)
		}
	}
}

func TestResultOfBoundedOutputCarriesItsBufferedTime(t *testing.T) {
	g3Result := `{"Result":{"cell_id":"1","content_items":[],"error_text":null,"result_buffered_for_ns":0,"code_mode_host_duration_ns":3819103}}`
	m, err := wirev1.DecodeWireRuntimeResponseFor(g3, []byte(g3Result))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(wirev1.Marshal(m)); got != g3Result {
		t.Errorf("re-encoded as %s", got)
	}
	if _, err := wirev1.DecodeWireRuntimeResponseFor(g2, []byte(g3Result)); err == nil || !strings.Contains(err.Error(), "unknown field `result_buffered_for_ns`") {
		t.Errorf("host-duration: %v", err)
	}
	g2Result := `{"Result":{"cell_id":"1","content_items":[],"error_text":null,"code_mode_host_duration_ns":1}}`
	if _, err := wirev1.DecodeWireRuntimeResponseFor(g3, []byte(g2Result)); err == nil || !strings.Contains(err.Error(), "missing field `result_buffered_for_ns`") {
		t.Errorf("bounded-output read a result without its buffered time: %v", err)
	}
	yielded := `{"Yielded":{"cell_id":"2","content_items":[{"type":"input_text","text":"a"}],"code_mode_host_duration_ns":4558711}}`
	if _, err := wirev1.DecodeWireRuntimeResponseFor(g3, []byte(yielded)); err != nil {
		t.Errorf("Yielded has no buffered time in bounded-output: %v", err)
	}
}

// TestCodexDecodeTexts: the decode errors of Codex 0.169's host for unknown fields and variants
// (docs/protocol/v1.md#handshake, docs/protocol/v1.md#messages), which list a variant's fields without its tag and word short
// lists as serde does. codemode's texts carry a JSON path before them.
func TestCodexDecodeTexts(t *testing.T) {
	cases := []struct{ json, codex string }{
		{`{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":[],"optionalCapabilities":[],"bogus":1}`,
			"unknown field `bogus`, expected one of `supportedVersions`, `requiredCapabilities`, `optionalCapabilities`"},
		{`{"type":"bogus/x"}`, "unknown variant `bogus/x`, expected one of `connection/hello`, `operation/request`, `operation/cancel`, `operation/yield`, `delegate/response`"},
		{`{"type":"operation/yield","id":1,"bogus":1}`, "unknown field `bogus`, expected `id`"},
		{`{"type":"operation/cancel","id":1,"bogus":1}`, "unknown field `bogus`, expected `id`"},
		{`{"type":"operation/request","id":1,"request":{"method":"session/open","sessionId":"s"},"bogus":1}`, "unknown field `bogus`, expected `id` or `request`"},
		{`{"type":"operation/request","id":1,"request":{"method":"session/open","sessionId":"s","bogus":1}}`,
			"unknown field `bogus`, expected one of `sessionId`, `cellExecutionLimits`, `outputTruncation`"},
		{`{"type":"operation/request","id":1,"request":{"method":"session/open","sessionId":"s","cellExecutionLimits":{"bogus":1}}}`,
			"unknown field `bogus`, expected `maxYieldTimeMs` or `maxHeapSizeBytes`"},
		{`{"type":"operation/request","id":1,"request":{"method":"session/execute","sessionId":"s","bogus":1}}`, "unknown field `bogus`, expected `sessionId` or `request`"},
		{`{"type":"operation/request","id":1,"request":{"method":"session/wait","sessionId":"s","request":{"cell_id":"1","yield_time_ms":1},"bogus":1}}`,
			"unknown field `bogus`, expected one of `sessionId`, `request`, `maxOutputTokens`"},
		{`{"type":"operation/request","id":1,"request":{"method":"session/wait","sessionId":"s","request":{"cell_id":"1","yield_time_ms":1,"bogus":1}}}`,
			"unknown field `bogus`, expected `cell_id` or `yield_time_ms`"},
		{`{"type":"operation/request","id":1,"request":{"method":"session/terminate","sessionId":"s","cellId":"1","bogus":1}}`,
			"unknown field `bogus`, expected one of `sessionId`, `cellId`, `maxOutputTokens`"},
		{`{"type":"operation/request","id":1,"request":{"method":"session/shutdown","sessionId":"s","bogus":1}}`, "unknown field `bogus`, expected `sessionId`"},
		{`{"type":"operation/request","id":1,"request":{"method":"bogus"}}`,
			"unknown variant `bogus`, expected one of `session/open`, `session/execute`, `session/wait`, `session/terminate`, `session/shutdown`"},
		{`{"type":"delegate/response","id":1,"result":{"status":"ok","value":{"type":"bogus"}}}`, "unknown variant `bogus`, expected `tool/result` or `notification/delivered`"},
		{`{"type":"delegate/response","id":1,"result":{"status":"ok","value":{"type":"tool/result","result":1,"bogus":1}}}`, "unknown field `bogus`, expected `result`"},
	}
	for _, c := range cases {
		_, err := wirev1.DecodeClientToHostFor(g3, []byte(c.json))
		if err == nil || !strings.HasSuffix(err.Error(), c.codex) {
			t.Errorf("%s:\n got %v\nwant …%s", c.json, err, c.codex)
		}
	}
}
