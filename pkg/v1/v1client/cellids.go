package v1client

import (
	"fmt"
	"strings"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
)

// publicCellID is the ID a caller sees for a wire cell of a connection of generation gen: the
// wire ID itself for the first host, "g{gen}:{wire}" after restarts (docs/protocol/grpc.md#cell-ids-across-host-restarts).
func publicCellID(gen uint64, wire wirev1.WireCellId) codemode.CellID {
	if gen == 1 {
		return codemode.CellID(wire)
	}
	return codemode.CellID(fmt.Sprintf("g%d:%s", gen, wire))
}

// wireCellID maps a caller's cell ID back to the wire. IDs of another generation are refused;
// with V1's stricter rule a generation-1 ID that looks like "g…:…" is refused too (Codex's
// remote_session cell_ids.rs), since the host never assigns such IDs.
func wireCellID(gen uint64, id codemode.CellID) (wirev1.WireCellId, error) {
	s := string(id)
	if gen == 1 {
		if strings.HasPrefix(s, "g") && strings.Contains(s, ":") {
			return "", staleCell(id)
		}
		return wirev1.WireCellId(s), nil
	}
	rest, ok := strings.CutPrefix(s, fmt.Sprintf("g%d:", gen))
	if !ok {
		return "", staleCell(id)
	}
	return wirev1.WireCellId(rest), nil
}

// RemoteCellID maps a caller's cell ID of a host generation to the host's own ID with the V1
// client's rule (stricter than the gRPC client's: a generation-1 ID shaped "g…:…" is refused, and
// the error names the cell). `codemode wire check`'s cell_id kind uses it.
func RemoteCellID(generation uint64, id codemode.CellID) (codemode.CellID, error) {
	wire, err := wireCellID(generation, id)
	return codemode.CellID(wire), err
}

func staleCell(id codemode.CellID) error {
	return fmt.Errorf("cell %s belongs to a stale code-mode host generation", id)
}

// publicResponse gives a received response its public cell ID.
func publicResponse(gen uint64, r codemode.RuntimeResponse) codemode.RuntimeResponse {
	r.CellID = publicCellID(gen, wirev1.WireCellId(r.CellID))
	return r
}
