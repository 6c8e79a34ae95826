package execrpc

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	wire "github.com/codemodehq/codemode/gen/go/execserverwire"
)

// The tests named after Codex's exec-server-protocol/src/rpc_tests.rs (docs/protocol/README.md#codex-test-suites), one Go test
// per Codex test: Test_<codex_name>.

func mustDecode(t *testing.T, data []byte) Message {
	t.Helper()
	m, err := Decode(data)
	if err != nil {
		t.Fatalf("decode %.200s: %v", data, err)
	}
	return m
}

func Test_round_trips_every_jsonrpc_message_variant(t *testing.T) {
	messages := []struct {
		msg  Message
		wire string
	}{
		{wire.JSONRPCRequest{Id: IntID(1), Method: "request", Params: json.RawMessage(`{"items":[1,2,3]}`)}, `{"id":1,"method":"request","params":{"items":[1,2,3]}}`},
		{wire.JSONRPCNotification{Method: "notification", Params: json.RawMessage(`{"enabled":true}`)}, `{"method":"notification","params":{"enabled":true}}`},
		{wire.JSONRPCResponse{Id: StringID("response"), Result: json.RawMessage(`{"value":"ok"}`)}, `{"id":"response","result":{"value":"ok"}}`},
		{wire.JSONRPCError{Error: wire.JSONRPCErrorError{Code: -32603, Data: json.RawMessage(`{"retryable":false}`), Message: "failed"}, Id: IntID(2)}, `{"error":{"code":-32603,"data":{"retryable":false},"message":"failed"},"id":2}`},
	}
	for _, c := range messages {
		encoded := Encode(c.msg)
		if string(encoded) != c.wire {
			t.Errorf("encoded %s, want %s", encoded, c.wire)
		}
		if bytes.Contains(encoded, []byte("jsonrpc")) {
			t.Errorf("output carries a jsonrpc member: %s", encoded)
		}
		got := mustDecode(t, encoded)
		if string(Encode(got)) != c.wire {
			t.Errorf("round trip %s gave %T %s", c.wire, got, Encode(got))
		}
		if want, have := typeName(c.msg), typeName(got); want != have {
			t.Errorf("%s decoded as %s, want %s", c.wire, have, want)
		}
	}
}

func typeName(m Message) string {
	switch m.(type) {
	case wire.JSONRPCRequest:
		return "request"
	case wire.JSONRPCNotification:
		return "notification"
	case wire.JSONRPCResponse:
		return "response"
	case wire.JSONRPCError:
		return "error"
	}
	return "?"
}

// TestDiscriminationPrecedence: Codex's explicit order, input "jsonrpc" tolerated, ids string or
// i64 only.
func TestDiscriminationPrecedence(t *testing.T) {
	cases := []struct{ in, kind, err string }{
		{`{"jsonrpc":"2.0","id":1,"method":"m"}`, "request", ""},
		{`{"method":"m","id":"x","result":1}`, "request", ""},
		{`{"method":"m"}`, "notification", ""},
		{`{"id":1,"result":null,"error":{"code":1,"message":"m"}}`, "response", ""},
		{`{"id":1,"error":{"code":1,"message":"m"}}`, "error", ""},
		{`{"id":1}`, "", "missing field `error`"},
		{`{"error":{"code":1,"message":"m"}}`, "", "missing field `id`"},
		{`[1]`, "", "expected a JSON-RPC object"},
		{`"x"`, "", "expected a JSON-RPC object"},
		{`{"id":1.5,"method":"m"}`, "", "id: data did not match any variant of untagged enum RequestId"},
		{`{"id":null,"method":"m"}`, "", "id: data did not match any variant of untagged enum RequestId"},
		{`{"id":1,"method":"m",}`, "", "trailing comma at line 1 column 22"},
		{`{"method":"m","trace":{"traceparent":"00-a-b-01"},"params":{}}`, "notification", ""},
	}
	for _, c := range cases {
		m, err := Decode([]byte(c.in))
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%s: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if typeName(m) != c.kind {
			t.Errorf("%s: %s, want %s", c.in, typeName(m), c.kind)
		}
	}
	req := mustDecode(t, []byte(`{"jsonrpc":"2.0","id":9223372036854775807,"method":"m"}`)).(wire.JSONRPCRequest)
	if got := string(Encode(req)); got != `{"id":9223372036854775807,"method":"m"}` {
		t.Errorf("re-encoded %s", got)
	}
}

func Test_round_trips_arbitrary_precision_numbers(t *testing.T) {
	for _, in := range []string{
		`{"id":1,"result":{"decimal":0.1000000000000000055511151231257827,"exponent":1e100,"overflow":18446744073709551616,"negative":-18446744073709551617,"float":1.50}}`,
		`{"method":"n","params":[1E+2,-0,123456789012345678901234567890.5]}`,
	} {
		if got := string(Encode(mustDecode(t, []byte(in)))); got != in {
			t.Errorf("round trip\n got %s\nwant %s", got, in)
		}
	}
}

// Codex's RolloutLine belongs to Codex's rollout files, which codemode does not model (docs/protocol/exec-server.md#scope); what these tests
// guard, f64 fields that survive the arbitrary-precision feature, is asserted here for the same
// lines carried through the envelope.
func Test_rollout_line_round_trips_rate_limit_windows_with_arbitrary_precision(t *testing.T) {
	in := `{"method":"rollout","params":{"timestamp":"2026-01-01T00:00:00.000Z","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{"primary":{"used_percent":12.5,"window_minutes":300,"resets_in_seconds":1234},"secondary":{"used_percent":0.30000000000000004,"window_minutes":10080,"resets_in_seconds":99}}}}}`
	if got := string(Encode(mustDecode(t, []byte(in)))); got != in {
		t.Errorf("round trip\n got %s\nwant %s", got, in)
	}
}

func Test_rollout_line_round_trips_review_confidence_with_arbitrary_precision(t *testing.T) {
	in := `{"method":"rollout","params":{"timestamp":"2026-01-01T00:00:00.000Z","type":"event_msg","payload":{"type":"exited_review_mode","review_output":{"findings":[{"title":"t","body":"b","confidence_score":0.87,"priority":1}],"overall_correctness":"patch is correct","overall_explanation":"e","overall_confidence_score":0.9500000000000001}}}}`
	if got := string(Encode(mustDecode(t, []byte(in)))); got != in {
		t.Errorf("round trip\n got %s\nwant %s", got, in)
	}
}

// Test_applies_value_limit_to_raw_value_wrapper: params, an opaque JSON value kept raw, decodes,
// but its values count against the message's budget like any others.
func Test_applies_value_limit_to_raw_value_wrapper(t *testing.T) {
	build := func(n int) []byte {
		var b bytes.Buffer
		b.WriteString(`{"method":"m","params":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('0')
		}
		b.WriteString("]}")
		return b.Bytes()
	}
	// root + method + params = 3 values; the array's elements fill the rest of the budget.
	fits := build(MaxValueNodes - 3)
	m := mustDecode(t, fits).(wire.JSONRPCNotification)
	if len(m.Params) != len(fits)-len(`{"method":"m","params":}`) {
		t.Errorf("params kept %d bytes", len(m.Params))
	}
	// Codex's text, position included (the ',' before the value over the budget).
	if _, err := Decode(build(MaxValueNodes - 2)); err == nil || err.Error() != TooManyValuesText+" at line 1 column 524306" {
		t.Errorf("one value over the budget: %v", err)
	}
}

func Test_accepts_large_scalar_payload(t *testing.T) {
	in := `{"method":"large","params":{"data":"` + strings.Repeat("x", MaxValueNodes+1) + `"}}`
	if got := string(Encode(mustDecode(t, []byte(in)))); got != in {
		t.Errorf("large scalar did not round-trip (%d bytes)", len(got))
	}
}

func Test_rejects_duplicate_object_keys(t *testing.T) {
	for in, want := range map[string]string{
		// Codex 0.171's texts (codex exec-server --listen stdio), positions included.
		`{"method":"a","method":"b"}`:                        "duplicate JSON object key `method` at line 1 column 22",
		`{"id":1,"method":"m","params":{"x":1,"\u0078":2}}`:  "duplicate JSON object key `x` at line 1 column 45",
		`{"method":"m","params":[{"k":1},{"k":2,"k":3}]}`:    "duplicate JSON object key `k` at line 1 column 42",
		`{"id":1,"result":{"a":{"b":1},"c":{"b":2},"a":{}}}`: "duplicate JSON object key `a` at line 1 column 45",
	} {
		if _, err := Decode([]byte(in)); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
}

// heapAmplification is Codex's repro: a 4,194,303-byte message of 2,097,137 zeros.
func heapAmplification() []byte {
	const values, size = 2_097_137, 4_194_303
	b := make([]byte, 0, size)
	b = append(b, `{"method":"probe","params":[`...)
	for i := range values {
		if i != 0 {
			b = append(b, ',')
		}
		b = append(b, '0')
	}
	return append(b, "]}"...)
}

func Test_rejects_compact_array_heap_amplification(t *testing.T) {
	encoded := heapAmplification()
	if len(encoded) != 4_194_303 {
		t.Fatalf("repro is %d bytes", len(encoded))
	}
	_, err := Decode(encoded)
	if err == nil || !strings.Contains(err.Error(), "exceeds the limit of 262144 JSON values") {
		t.Fatalf("unexpected error: %v", err)
	}
	if err.Error() != "JSON-RPC message exceeds the limit of 262144 JSON values at line 1 column 524310" {
		t.Errorf("error text %q", err)
	}
	// Nothing is allocated for the values: the pre-scan refuses the message first (a few small
	// allocations for the two keys and the error; BenchmarkRejectHeapAmplification: ~500 B/op).
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _ = Decode(encoded)
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 16<<10 {
		t.Errorf("refusing the message allocated %d bytes", n)
	}
}

// BenchmarkRejectHeapAmplification shows the memory it takes to refuse Codex's repro (B/op).
func BenchmarkRejectHeapAmplification(b *testing.B) {
	encoded := heapAmplification()
	b.Run("execrpc", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(encoded)))
		for b.Loop() {
			if _, err := Decode(encoded); err == nil {
				b.Fatal("accepted")
			}
		}
	})
	// What a decoder without the budget allocates for the same message: encoding/json into
	// an any, the baseline the ratio in docs/benchmarks.md is taken against.
	b.Run("encoding_json_baseline", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(encoded)))
		for b.Loop() {
			var v any
			if err := json.Unmarshal(encoded, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// FuzzDecode: whatever decodes re-encodes to a message that decodes to the same encoding, and
// nothing panics.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"id":1,"method":"initialize","params":{"clientName":"c"}}`, `{"method":"initialized"}`,
		`{"id":"a","result":{"x":[1,2.50,1e3]}}`, `{"error":{"code":-32601,"message":"m"},"id":3}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","trace":{"traceparent":"t"}}`, `[]`, `{"a":1,"a":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data)
		if err != nil {
			return
		}
		first := Encode(m)
		again, err := Decode(first)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", first, err)
		}
		if second := Encode(again); !bytes.Equal(first, second) {
			t.Fatalf("unstable: %s vs %s", first, second)
		}
	})
}
