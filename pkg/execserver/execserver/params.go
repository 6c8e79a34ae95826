package execserver

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"

	wire "github.com/codemodehq/codemode/gen/go/execserverwire"
	"github.com/codemodehq/codemode/pkg/execserver/execrpc"
)

// unit is the params of a method that takes none.
type unit struct{}

// decodeUnit accepts what serde accepts for a unit: absent, null or an empty object.
func decodeUnit(params []byte) (unit, error) {
	var v any
	if err := json.Unmarshal(params, &v); err != nil {
		return unit{}, &wire.DecodeError{Msg: err.Error()}
	}
	switch x := v.(type) {
	case nil:
		return unit{}, nil
	case map[string]any:
		if len(x) == 0 {
			return unit{}, nil
		}
		return unit{}, &wire.DecodeError{Msg: "invalid type: map, expected unit"}
	case []any:
		return unit{}, &wire.DecodeError{Msg: "invalid type: sequence, expected unit"}
	}
	return unit{}, &wire.DecodeError{Msg: "invalid type: " + strings.TrimPrefix(string(params), " ") + ", expected unit"}
}

var (
	// A number where an integer type is expected: Codex's serde_json (arbitrary_precision) says
	// only "invalid number", whatever the number was.
	numberForInteger = regexp.MustCompile("^invalid (type|value): (integer|floating point) `[^`]*`, expected [ui](8|16|32|64|128|size)$")
	// A number where something else is expected: "invalid type: number, expected a string".
	numberLexeme = regexp.MustCompile("(integer|floating point) `[^`]*`")
)

// paramsError is the -32602 error for params that failed to decode, in Codex's words: serde's
// message alone (serde_json names no field path), with arbitrary_precision's wording of numbers
// and serde's "sequence" for an array.
func paramsError(err error) error {
	msg := err.Error()
	var de *wire.DecodeError
	if errors.As(err, &de) {
		msg = de.Msg
	}
	switch {
	case numberForInteger.MatchString(msg):
		msg = "invalid number"
	default:
		msg = numberLexeme.ReplaceAllString(msg, "number")
		msg = strings.Replace(msg, "invalid type: array,", "invalid type: sequence,", 1)
	}
	return &execrpc.Error{Code: execrpc.CodeInvalidParams, Message: msg}
}

// pathKeys are the params members that hold a PathUri in the methods served here.
var pathKeys = []string{"path", "cwd", "sourcePath", "destinationPath"}

// checkPathURIs refuses a path URI that does not parse while the params are decoded, before the
// handshake check: the -32602 errors of URIToPath. A host that is not this machine's is refused
// later, where the path is used (-32600). Paths are part of the params' type
// (docs/protocol/exec-server.md#envelope), so a client gets these codes at these stages from
// Codex's exec-server too, and handles both the same way with either server (docs/exec-server.md).
func checkPathURIs(params []byte) error {
	var members map[string]json.RawMessage
	if json.Unmarshal(params, &members) != nil {
		return nil
	}
	for _, k := range pathKeys {
		var u string
		if json.Unmarshal(members[k], &u) != nil {
			continue
		}
		var rpcErr *execrpc.Error
		if _, err := URIToPath(wire.PathUri(u)); errors.As(err, &rpcErr) && rpcErr.Code == execrpc.CodeInvalidParams {
			return err
		}
	}
	return nil
}
