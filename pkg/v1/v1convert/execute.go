package v1convert

import (
	"errors"
	"math"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
)

// ErrIntegerRange is Rust's TryFromIntError text: an integer that does not fit the other side's
// type.
var ErrIntegerRange = errors.New("out of range integral type conversion attempted")

// ExecuteRequestToWire converts a domain request for the wire. MaxOutputTokens is an i32 on the
// wire: a larger value fails with ErrIntegerRange.
func ExecuteRequestToWire(r codemode.ExecuteRequest) (wirev1.WireExecuteRequest, error) {
	w := wirev1.WireExecuteRequest{
		ToolCallId:   r.ToolCallID,
		EnabledTools: make([]wirev1.WireToolDefinition, len(r.EnabledTools)),
		Source:       r.Source,
		YieldTimeMs:  r.YieldTimeMs,
	}
	if r.MaxOutputTokens != nil {
		n := *r.MaxOutputTokens
		if n < 0 || n > math.MaxInt32 {
			return wirev1.WireExecuteRequest{}, ErrIntegerRange
		}
		m := int32(n)
		w.MaxOutputTokens = &m
	}
	for i, d := range r.EnabledTools {
		w.EnabledTools[i] = ToolDefinitionToWire(d)
	}
	return w, nil
}

// ExecuteRequestFromWire converts a request received from the wire. A negative max_output_tokens
// decodes but fails here with ErrIntegerRange (Codex's usize conversion).
func ExecuteRequestFromWire(w wirev1.WireExecuteRequest) (codemode.ExecuteRequest, error) {
	r := codemode.ExecuteRequest{
		ToolCallID:   w.ToolCallId,
		EnabledTools: make([]codemode.ToolDefinition, len(w.EnabledTools)),
		Source:       w.Source,
		YieldTimeMs:  w.YieldTimeMs,
	}
	if w.MaxOutputTokens != nil {
		if *w.MaxOutputTokens < 0 {
			return codemode.ExecuteRequest{}, ErrIntegerRange
		}
		n := int(*w.MaxOutputTokens)
		r.MaxOutputTokens = &n
	}
	for i, d := range w.EnabledTools {
		def, err := ToolDefinitionFromWire(d)
		if err != nil {
			return codemode.ExecuteRequest{}, err
		}
		r.EnabledTools[i] = def
	}
	return r, nil
}

// WaitRequestToWire converts a wait for the wire; the cell ID is the wire ID.
func WaitRequestToWire(cell wirev1.WireCellId, r codemode.WaitRequest) wirev1.WireWaitRequest {
	return wirev1.WireWaitRequest{CellId: cell, YieldTimeMs: r.YieldTimeMs}
}

// WaitRequestFromWire converts a wait received from the wire.
func WaitRequestFromWire(w wirev1.WireWaitRequest) codemode.WaitRequest {
	return codemode.WaitRequest{CellID: codemode.CellID(w.CellId), YieldTimeMs: w.YieldTimeMs}
}
