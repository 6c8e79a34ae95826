package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	// Registers every codex.code_mode.v1 message with protoregistry.GlobalTypes.
	_ "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/v1/v1frame"
)

func init() {
	register("wire", command{summary: "wire check: validate V1, gRPC and frame inputs (JSON Lines)", run: runWire})
}

// v1Kinds are the V1 message families `wire check` accepts as "v1:<Type>".
var v1Kinds = []string{
	"ClientToHost", "HostToClient", "HostRequest", "HostResponse", "DelegateRequest", "DelegateResponse",
	"WireExecuteRequest", "WireToolDefinition", "WireToolName", "WireWaitRequest", "WireSessionCellExecutionLimits",
	"WireContentItem", "WireRuntimeResponse", "WireWaitOutcome", "WireNestedToolCall",
}

// grpcPackage is the proto package "grpc:<Message>" inputs are resolved in.
const grpcPackage = "codex.code_mode.v1"

// checkInput is one JSON line on stdin.
type checkInput struct {
	Kind string          `json:"kind"`
	JSON json.RawMessage `json:"json"`
	Hex  *string         `json:"hex"`
	// Input is the raw exec tool input of "exec_source" lines.
	Input *string `json:"input"`
	// Generation means what the kind says: for "v1:" lines the wire generation the message is
	// read in, a string ("baseline", the default; "host-duration": runtime responses with
	// code_mode_host_duration_ns, docs/protocol/v1.md#host-duration-g2; "bounded-output": Codex 0.169's, docs/protocol/v1.md#bounded-output-g3);
	// for "cell_id" lines the host generation, a number
	// (wire_check_grpc.go).
	Generation json.RawMessage `json:"generation"`
	// Public and Client are the other fields of "cell_id" lines.
	Public *string `json:"public"`
	Client *string `json:"client"`
}

// checkResult is one JSON line on stdout. Value holds a canonical encoding (raw JSON).
type checkResult struct {
	OK        bool
	Value     []byte
	Error     string
	ErrorKind string // "invalid_data" for frame inputs
}

// kindChecker checks the input of one kind; name is the part after the prefix ("" for
// prefix-less kinds).
type kindChecker func(name string, in checkInput) checkResult

// kindCheckers maps a kind prefix to its checker.
//
// Other files register their kinds in init: "exec_source" (wire_exec_source.go) and "cell_id"
// (wire_check_grpc.go). A prefix ending in ":" takes a name after it.
var kindCheckers = map[string]kindChecker{
	"v1:":   checkV1,
	"grpc:": checkGRPC,
	"frame": checkFrame,
}

func runWire(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 || args[0] != "check" {
		fmt.Fprintln(stderr, "usage: codemode wire check < inputs.jsonl")
		fmt.Fprintln(stderr, `  each line: {"kind":"v1:<Type>","json":…[,"generation":"baseline"|"host-duration"|"bounded-output"]},`)
		fmt.Fprintln(stderr, `  {"kind":"grpc:<Message>","json":…}, {"kind":"frame","hex":"…"} (hex = one WebSocket binary message),`)
		fmt.Fprintln(stderr, `  {"kind":"exec_source","input":"…"} or {"kind":"cell_id","host_generation":N,"public":"…"[,"client":"grpc"|"v1"]}`)
		return 2
	}
	in := bufio.NewReader(stdin)
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			writeResult(out, checkLine(line))
		}
		if err == io.EOF {
			return 0
		}
		if err != nil {
			fmt.Fprintln(stderr, "codemode wire check:", err)
			return 1
		}
	}
}

func checkLine(line []byte) checkResult {
	var in checkInput
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return failure(fmt.Errorf("malformed input line: %w", err))
	}
	for prefix, check := range kindCheckers {
		if strings.HasSuffix(prefix, ":") && strings.HasPrefix(in.Kind, prefix) {
			return check(strings.TrimPrefix(in.Kind, prefix), in)
		}
		if in.Kind == prefix {
			return check("", in)
		}
	}
	return failure(fmt.Errorf("unknown kind %q", in.Kind))
}

func failure(err error) checkResult {
	return checkResult{Error: err.Error()}
}

func writeResult(w *bufio.Writer, r checkResult) {
	if r.OK {
		w.WriteString(`{"ok":true,"value":`)
		w.Write(r.Value)
		w.WriteString("}\n")
		return
	}
	w.WriteString(`{"ok":false,`)
	if r.ErrorKind != "" {
		w.WriteString(`"kind":`)
		w.Write(jsonString(r.ErrorKind))
		w.WriteByte(',')
	}
	w.WriteString(`"error":`)
	w.Write(jsonString(r.Error))
	w.WriteString("}\n")
}

// jsonString encodes s without encoding/json's HTML escaping, so error texts stay readable.
func jsonString(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // encoding a string cannot fail
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func checkV1(name string, in checkInput) checkResult {
	if !slices.Contains(v1Kinds, name) {
		return failure(fmt.Errorf("unknown V1 type %q (known: %s)", name, strings.Join(v1Kinds, ", ")))
	}
	if in.JSON == nil {
		return failure(errors.New(`missing "json"`))
	}
	gen, err := wireGeneration(in.Generation)
	if err != nil {
		return failure(err)
	}
	m, _, err := wirev1.DecodeNamedFor(name, gen, in.JSON)
	if err != nil {
		return failure(err)
	}
	if err := semanticCheck(m); err != nil {
		return failure(err)
	}
	return checkResult{OK: true, Value: wirev1.Marshal(m)}
}

// wireGeneration reads a "v1:" line's optional generation, a string.
func wireGeneration(raw json.RawMessage) (wirev1.Generation, error) {
	if raw == nil {
		return wirev1.GenerationBaseline, nil
	}
	var name string
	if err := json.Unmarshal(raw, &name); err != nil {
		return 0, fmt.Errorf(`"generation" of a V1 line must be a string ("baseline", "host-duration" or "bounded-output"), not %s`, raw)
	}
	return wirev1.ParseGeneration(name)
}

// semanticCheck applies what a Codex peer refuses after a successful decode.
func semanticCheck(m wirev1.Message) error {
	switch v := m.(type) {
	case wirev1.OperationRequest:
		return semanticCheck(v.Request)
	case wirev1.Execute:
		return v.Request.CheckSemantics()
	case wirev1.WireExecuteRequest:
		return v.CheckSemantics()
	case wirev1.HostHello:
		return checkPairingToken(v)
	}
	return nil
}

// checkPairingToken is the client's handshake check: a bulk token accompanies exactly the
// grant of dual-websocket-v1.
func checkPairingToken(h wirev1.HostHello) error {
	dual := slices.Contains(h.Capabilities, "dual-websocket-v1")
	switch {
	case dual && h.BulkConnectionToken == nil:
		return errors.New("code-mode host advertised dual websockets without a pairing token")
	case !dual && h.BulkConnectionToken != nil:
		return errors.New("code-mode host returned an unexpected bulk pairing token")
	}
	return nil
}

func checkGRPC(name string, in checkInput) checkResult {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(protoreflect.FullName(grpcPackage + "." + name))
	if err != nil {
		// The registry error text is deliberately unstable (protobuf randomizes spaces); do not echo it.
		return failure(fmt.Errorf("unknown gRPC message %q in %s", name, grpcPackage))
	}
	if in.JSON == nil {
		return failure(errors.New(`missing "json"`))
	}
	msg := mt.New().Interface()
	if err := protojson.Unmarshal(in.JSON, msg); err != nil {
		return failure(err)
	}
	if err := grpcSemanticCheck(msg); err != nil {
		return failure(err)
	}
	out, err := protojson.Marshal(msg)
	if err != nil {
		return failure(err)
	}
	// protojson randomizes whitespace on purpose; compact it for a stable value.
	var compact bytes.Buffer
	if err := json.Compact(&compact, out); err != nil {
		return failure(err)
	}
	return checkResult{OK: true, Value: compact.Bytes()}
}

// checkFrame reads its hex as one WebSocket binary message, with the message decoder: the
// message must be exactly one frame, so a missing prefix, a truncated or trailing payload and an
// oversize length are all invalid data (a message cannot end "unexpectedly"). The value is the
// payload's canonical JSON.
func checkFrame(_ string, in checkInput) checkResult {
	if in.Hex == nil {
		return failure(errors.New(`missing "hex"`))
	}
	data, err := hex.DecodeString(*in.Hex)
	if err != nil {
		return failure(fmt.Errorf("malformed hex: %w", err))
	}
	payload, err := v1frame.Decode(data)
	if err != nil {
		return checkResult{Error: err.Error(), ErrorKind: "invalid_data"}
	}
	canonical, err := wirev1.CanonicalJSON(payload)
	if err != nil {
		return checkResult{Error: "failed to decode code-mode IPC frame: " + err.Error(), ErrorKind: "invalid_data"}
	}
	return checkResult{OK: true, Value: canonical}
}
