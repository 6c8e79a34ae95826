// Command grpcfixtures writes the protojson fixture tree of the gRPC package codex.code_mode.v1:
// fixtures/grpc/<Message>/<case>.json for every message of the package.
//
// The cases are derived from the compiled descriptors, not written by hand, so a schema change
// shows up as a fixture diff in review. Every message gets:
//
//   - minimal: every field at its default, which encodes as {}.
//   - full: every field set to a deterministic non-default value (nested messages recursively,
//     the first member of each oneof).
//   - oneof_<field>: like full, with <field> as the chosen member of its oneof, one case per member.
//   - optional_defaults: every proto3 `optional` field explicitly set to its zero value, which
//     presence tracking must keep on the wire (only for messages with such fields). This case is
//     about presence, not meaning: its JSON bytes fields are empty, not valid JSON.
//
// The Go and TypeScript round-trip tests decode each file and re-encode it to the same JSON value.
// Run from the repository root (tools/generate.sh does): go run ./generators/grpcfixtures
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	out := flag.String("out", "fixtures/grpc", "directory to replace with the fixture tree (its current content is deleted)")
	flag.Parse()
	fixtures, err := buildAll()
	if err == nil {
		err = writeTree(*out, fixtures)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "grpcfixtures:", err)
		os.Exit(1)
	}
}
