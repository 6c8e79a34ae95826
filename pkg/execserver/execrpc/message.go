package execrpc

import (
	"encoding/json"
	"fmt"

	wire "github.com/codemodehq/codemode/gen/go/execserverwire"
	"github.com/codemodehq/codemode/pkg/serdejson/serdeimpl"
)

// Message is one JSON-RPC message: a wire.JSONRPCRequest, wire.JSONRPCNotification,
// wire.JSONRPCResponse or wire.JSONRPCError value.
type Message = serdeimpl.Message

// Standard error codes of the dialect (docs/protocol/exec-server.md#error-codes).
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	CodeServerError    = -32001
)

// Decode reads one message with Codex's rules: the bounded pre-scan (TooManyValuesText,
// "duplicate JSON object key `k`"), serde_json's syntax errors, then the kind by precedence —
// not an object: "expected a JSON-RPC object"; "method" and "id": a request; "method" only: a
// notification; else "result": a response; else an error (which needs "error" and "id").
// Unknown members ("jsonrpc" among them) are ignored; params, result and error data keep their
// number lexemes.
func Decode(data []byte) (Message, error) {
	info, err := scan(data)
	if err != nil {
		return nil, err
	}
	if !info.complete || !info.object {
		if _, err := serdeimpl.ParseDocument(data); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("expected a JSON-RPC object")
	}
	switch {
	case info.hasMethod && info.hasID:
		return wire.DecodeJSONRPCRequest(data)
	case info.hasMethod:
		return wire.DecodeJSONRPCNotification(data)
	case info.hasResult:
		return wire.DecodeJSONRPCResponse(data)
	}
	return wire.DecodeJSONRPCError(data)
}

// Encode returns the compact encoding of a message (no "jsonrpc" member).
func Encode(m Message) []byte { return serdeimpl.Marshal(m) }

// IntID and StringID make request ids.
func IntID(i int64) wire.RequestId { return wire.RequestId{Int: i} }

// StringID makes a string request id.
func StringID(s string) wire.RequestId { return wire.RequestId{Str: s, IsString: true} }

// Error is a JSON-RPC error: what a handler returns to answer with an error response, and what
// Call returns when the peer answered with one.
type Error struct {
	Code    int64
	Message string
	Data    json.RawMessage
}

// Error returns the message with its code, "unknown method (code -32601)".
func (e *Error) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// Errorf makes an *Error with a formatted message.
func Errorf(code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// InvalidParams is the -32602 error for params that failed to decode.
func InvalidParams(err error) *Error {
	return &Error{Code: CodeInvalidParams, Message: "invalid params: " + err.Error()}
}

// Raw encodes a generated value as a json.RawMessage for params or result.
func Raw(m serdeimpl.Message) json.RawMessage { return serdeimpl.Marshal(m) }
