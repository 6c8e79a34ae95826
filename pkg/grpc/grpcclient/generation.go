package grpcclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// Cell IDs across host generations (spec §3.9). A session's first lease is generation 1; each
// lease opened after the host was lost is the next. Generation 1 shows the host's cell IDs as
// they are; later generations prefix them with "g<N>:", so an ID of a lost generation can never
// name a cell of the current one.

// ErrStaleGeneration is the error of a wait or terminate that names a cell of a lost generation.
var ErrStaleGeneration = errors.New("cell belongs to a stale code-mode host generation")

// PublicCellID is the ID callers see for the host's cell wire of generation.
func PublicCellID(generation uint64, wire codemode.CellID) codemode.CellID {
	if generation <= 1 {
		return wire
	}
	return codemode.CellID(fmt.Sprintf("g%d:%s", generation, wire))
}

// RemoteCellID is the host's ID of the cell a caller names as public in generation: as is in
// generation 1 (even one that looks prefixed, such as "g2:42" or "graphics:1"), the part after
// "g<N>:" in generation N ≥ 2. Any other ID fails with ErrStaleGeneration, which does not echo it.
func RemoteCellID(generation uint64, public codemode.CellID) (codemode.CellID, error) {
	if generation <= 1 {
		return public, nil
	}
	wire, ok := strings.CutPrefix(string(public), fmt.Sprintf("g%d:", generation))
	if !ok {
		return "", ErrStaleGeneration
	}
	return codemode.CellID(wire), nil
}

// publicResponse maps a response's cell ID to generation.
func publicResponse(generation uint64, r codemode.RuntimeResponse) codemode.RuntimeResponse {
	r.CellID = PublicCellID(generation, r.CellID)
	return r
}

// publicWaitOutcome maps a wait outcome's cell ID to generation; missing stays missing.
func publicWaitOutcome(generation uint64, o codemode.WaitOutcome) codemode.WaitOutcome {
	o.Response = publicResponse(generation, o.Response)
	return o
}

// generationDelegate shows a delegate the public cell IDs of its generation in every callback.
type generationDelegate struct {
	delegate   codemode.Delegate
	generation uint64
}

// StartToolCall forwards the call with its public cell ID.
func (d generationDelegate) StartToolCall(ctx context.Context, call codemode.NestedToolCall, done func(json.RawMessage, error)) {
	call.CellID = PublicCellID(d.generation, call.CellID)
	d.delegate.StartToolCall(ctx, call, done)
}

// StartNotify forwards the notification with its public cell ID.
func (d generationDelegate) StartNotify(ctx context.Context, callID string, cell codemode.CellID, text string, done func(error)) {
	d.delegate.StartNotify(ctx, callID, PublicCellID(d.generation, cell), text, done)
}

// CellClosed forwards the closure with its public cell ID.
func (d generationDelegate) CellClosed(cell codemode.CellID) {
	d.delegate.CellClosed(PublicCellID(d.generation, cell))
}

// ReportFailure forwards the failure.
func (d generationDelegate) ReportFailure(reason string) { d.delegate.ReportFailure(reason) }

// CellUsage forwards the usage with its public cell ID (a remote session measures none today).
func (d generationDelegate) CellUsage(cell codemode.CellID, usage codemode.CellUsage) {
	d.delegate.CellUsage(PublicCellID(d.generation, cell), usage)
}
