package grpcclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// Cell IDs across reconnect epochs (docs/protocol/grpc.md#cell-ids-across-host-restarts). A session's first lease is epoch 1; each
// lease opened after the host was lost is the next. Epoch 1 shows the host's cell IDs as
// they are; later epochs prefix them with "g<N>:", so an ID of a lost epoch can never
// name a cell of the current one. The prefix and ErrStaleEpoch's text still say "g" and
// "generation": callers hold these IDs and match that text, so the bytes stay as they were.

// ErrStaleEpoch is the error of a wait or terminate that names a cell of a lost epoch.
var ErrStaleEpoch = errors.New("cell belongs to a stale code-mode host generation")

// PublicCellID is the ID callers see for the host's cell wire of epoch.
func PublicCellID(epoch uint64, wire codemode.CellID) codemode.CellID {
	if epoch <= 1 {
		return wire
	}
	return codemode.CellID(fmt.Sprintf("g%d:%s", epoch, wire))
}

// RemoteCellID is the host's ID of the cell a caller names as public in epoch: as is in
// epoch 1 (even one that looks prefixed, such as "g2:42" or "graphics:1"), the part after
// "g<N>:" in epoch N ≥ 2. Any other ID fails with ErrStaleEpoch, which does not echo it.
func RemoteCellID(epoch uint64, public codemode.CellID) (codemode.CellID, error) {
	if epoch <= 1 {
		return public, nil
	}
	wire, ok := strings.CutPrefix(string(public), fmt.Sprintf("g%d:", epoch))
	if !ok {
		return "", ErrStaleEpoch
	}
	return codemode.CellID(wire), nil
}

// publicResponse maps a response's cell ID to epoch.
func publicResponse(epoch uint64, r codemode.RuntimeResponse) codemode.RuntimeResponse {
	r.CellID = PublicCellID(epoch, r.CellID)
	return r
}

// publicWaitOutcome maps a wait outcome's cell ID to epoch; missing stays missing.
func publicWaitOutcome(epoch uint64, o codemode.WaitOutcome) codemode.WaitOutcome {
	o.Response = publicResponse(epoch, o.Response)
	return o
}

// epochDelegate shows a delegate the public cell IDs of its epoch in every callback.
type epochDelegate struct {
	delegate codemode.Delegate
	epoch    uint64
}

// StartToolCall forwards the call with its public cell ID.
func (d epochDelegate) StartToolCall(ctx context.Context, call codemode.NestedToolCall, done func(json.RawMessage, error)) {
	call.CellID = PublicCellID(d.epoch, call.CellID)
	d.delegate.StartToolCall(ctx, call, done)
}

// StartNotify forwards the notification with its public cell ID.
func (d epochDelegate) StartNotify(ctx context.Context, callID string, cell codemode.CellID, text string, done func(error)) {
	d.delegate.StartNotify(ctx, callID, PublicCellID(d.epoch, cell), text, done)
}

// CellClosed forwards the closure with its public cell ID.
func (d epochDelegate) CellClosed(cell codemode.CellID) {
	d.delegate.CellClosed(PublicCellID(d.epoch, cell))
}

// ReportFailure forwards the failure.
func (d epochDelegate) ReportFailure(reason string) { d.delegate.ReportFailure(reason) }

// CellUsage forwards the usage with its public cell ID (a remote session measures none today).
func (d epochDelegate) CellUsage(cell codemode.CellID, usage codemode.CellUsage) {
	d.delegate.CellUsage(PublicCellID(d.epoch, cell), usage)
}
