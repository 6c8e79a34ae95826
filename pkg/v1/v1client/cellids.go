package v1client

import (
	"fmt"
	"strings"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
)

// Cell IDs across reconnect epochs (docs/protocol/grpc.md#cell-ids-across-host-restarts): a
// provider's first connection is epoch 1, each one opened after a connection failed is the next.
// Not the wire version (wirev1.Generation): the prefix "g" and the stale-cell error's text say
// "generation", and stay so because callers hold these IDs and match that text.

// publicCellID is the ID a caller sees for a wire cell of a connection of epoch: the wire ID
// itself for the first host, "g{epoch}:{wire}" after restarts.
func publicCellID(epoch uint64, wire wirev1.WireCellId) codemode.CellID {
	if epoch == 1 {
		return codemode.CellID(wire)
	}
	return codemode.CellID(fmt.Sprintf("g%d:%s", epoch, wire))
}

// wireCellID maps a caller's cell ID back to the wire. IDs of another epoch are refused;
// with V1's stricter rule an epoch-1 ID that looks like "g…:…" is refused too (Codex's
// remote_session cell_ids.rs), since the host never assigns such IDs.
func wireCellID(epoch uint64, id codemode.CellID) (wirev1.WireCellId, error) {
	s := string(id)
	if epoch == 1 {
		if strings.HasPrefix(s, "g") && strings.Contains(s, ":") {
			return "", staleCell(id)
		}
		return wirev1.WireCellId(s), nil
	}
	rest, ok := strings.CutPrefix(s, fmt.Sprintf("g%d:", epoch))
	if !ok {
		return "", staleCell(id)
	}
	return wirev1.WireCellId(rest), nil
}

// RemoteCellID maps a caller's cell ID of a reconnect epoch to the host's own ID with the V1
// client's rule (stricter than the gRPC client's: an epoch-1 ID shaped "g…:…" is refused, and
// the error names the cell). `codemode wire check`'s cell_id kind uses it.
func RemoteCellID(epoch uint64, id codemode.CellID) (codemode.CellID, error) {
	wire, err := wireCellID(epoch, id)
	return codemode.CellID(wire), err
}

func staleCell(id codemode.CellID) error {
	return fmt.Errorf("cell %s belongs to a stale code-mode host generation", id)
}

// publicResponse gives a received response its public cell ID.
func publicResponse(epoch uint64, r codemode.RuntimeResponse) codemode.RuntimeResponse {
	r.CellID = publicCellID(epoch, wirev1.WireCellId(r.CellID))
	return r
}
