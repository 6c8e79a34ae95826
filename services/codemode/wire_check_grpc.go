package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
	"github.com/codemodehq/codemode/pkg/v1/v1client"
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
// (docs/protocol/grpc.md#cell-ids-across-host-restarts), or with "client":"v1" the V1 client's stricter one. The value is
// {"remote":"<host ID>"}.
func checkCellID(_ string, in checkInput) checkResult {
	if in.Generation == nil {
		return failure(errors.New(`missing "generation"`))
	}
	var generation uint64
	if err := json.Unmarshal(in.Generation, &generation); err != nil {
		return failure(fmt.Errorf(`"generation" of a cell_id line must be a non-negative integer, not %s`, in.Generation))
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
		remote, err = grpcclient.RemoteCellID(generation, codemode.CellID(*in.Public))
	case "v1":
		remote, err = v1client.RemoteCellID(generation, codemode.CellID(*in.Public))
	default:
		return failure(fmt.Errorf(`unknown client %q (known: "grpc", "v1")`, client))
	}
	if err != nil {
		return failure(err)
	}
	return checkResult{OK: true, Value: []byte(`{"remote":` + string(jsonString(string(remote))) + `}`)}
}
