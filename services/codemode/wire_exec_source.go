package main

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/codemodehq/codemode/pkg/modeltool"
)

func init() {
	kindCheckers["exec_source"] = checkExecSource
}

// execSourceValue is the canonical value of an accepted exec tool input, keys in this order.
type execSourceValue struct {
	Code            string  `json:"code"`
	YieldTimeMs     *uint64 `json:"yield_time_ms"`
	MaxOutputTokens *uint64 `json:"max_output_tokens"`
}

// checkExecSource parses {"kind":"exec_source","input":"…"} by the rules Codex applies to the
// exec tool's freeform input (docs/protocol/javascript.md#the-exec-tool), since the command
// answers whether Codex would take it: the optional first-line pragma is split off and
// validated, and a refusal carries Codex's exact text, the one a model reads.
func checkExecSource(_ string, in checkInput) checkResult {
	if in.Input == nil {
		return failure(errors.New(`exec_source input needs a string "input"`))
	}
	parsed, err := modeltool.ParseExecSource(*in.Input)
	if err != nil {
		return failure(err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(execSourceValue{parsed.Code, parsed.YieldTimeMs, parsed.MaxOutputTokens}); err != nil {
		return failure(err)
	}
	return checkResult{OK: true, Value: bytes.TrimSuffix(buf.Bytes(), []byte("\n"))}
}
