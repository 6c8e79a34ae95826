package main

import (
	"errors"
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpcclient"
	"github.com/codemodehq/codemode/pkg/grpcconv"
)

// The gRPC side of `wire check`: the semantic checks of "grpc:<Message>" lines, and the "cell_id"
// kind, the clients' mapping of public cell IDs across host generations.

func init() {
	kindCheckers["cell_id"] = checkCellID
}

// grpcSemanticCheck applies to a decoded gRPC message what its receiving peer refuses after a
// successful decode, with the peer's texts (grpcconv.Check): an ExecutionOutcome with an
// unspecified image detail, a WaitResponse without a state, a ToolDefinition without a kind….
func grpcSemanticCheck(m proto.Message) error {
	return grpcconv.Check(m)
}

// checkCellID maps a public cell ID of a generation to the host's ID, as a client does before a
// wait or terminate: {"kind":"cell_id","generation":N,"public":"…"} with the gRPC client's rule
// (spec §3.9), or with "client":"v1" the V1 client's stricter one. The value is
// {"remote":"<host ID>"}.
func checkCellID(_ string, in checkInput) checkResult {
	if in.Generation == nil {
		return failure(errors.New(`missing "generation"`))
	}
	if in.Public == nil {
		return failure(errors.New(`missing "public"`))
	}
	client := "grpc"
	if in.Client != nil {
		client = *in.Client
	}
	var remote codemode.CellID
	var err error
	switch client {
	case "grpc":
		remote, err = grpcclient.RemoteCellID(*in.Generation, codemode.CellID(*in.Public))
	case "v1":
		remote, err = v1RemoteCellID(*in.Generation, *in.Public)
	default:
		return failure(fmt.Errorf(`unknown client %q (known: "grpc", "v1")`, client))
	}
	if err != nil {
		return failure(err)
	}
	return checkResult{OK: true, Value: []byte(`{"remote":` + string(jsonString(string(remote))) + `}`)}
}

// v1RemoteCellID is the V1 client's rule (Codex's remote_session cell_ids.rs): the gRPC client's,
// except that in generation 1 an ID that looks prefixed ("g…:…") is refused too, and the error
// names the ID. It belongs with the V1 client; it is here until that client exports it.
func v1RemoteCellID(generation uint64, public string) (codemode.CellID, error) {
	stale := fmt.Errorf("cell %s belongs to a stale code-mode host generation", public)
	if generation <= 1 {
		if strings.HasPrefix(public, "g") && strings.Contains(public, ":") {
			return "", stale
		}
		return codemode.CellID(public), nil
	}
	remote, ok := strings.CutPrefix(public, fmt.Sprintf("g%d:", generation))
	if !ok {
		return "", stale
	}
	return codemode.CellID(remote), nil
}
