// Package grpcconv converts between the protobuf messages of codex.code_mode.v1 (gen/go/pb) and
// the domain types of package codemode, in one place for the gRPC host, the gRPC client and the
// CLI's wire check.
//
// A conversion refuses what Codex refuses, with Codex's texts: unspecified or unknown enum values
// (tool kind, image detail), empty oneofs (content item, execute event, wait response, outcome,
// completion), invalid JSON in the *_json fields (serde_json's messages, from pkg/serdejson), and
// identifiers that are empty, longer than 256 bytes or not UUIDs where the protocol says so. The
// texts are part of the contract: both peers show them to the model or to their callers.
//
// Names follow package v1convert's scheme: XToProto builds the message a peer sends from a domain
// value X, XFromProto converts a received message into X and applies the receiving peer's checks
// (a conversion from the wire validates, as V1's strict decoders do, so no unchecked value
// reaches the domain). Check runs the same checks by message type, without keeping the result.
//
// Texts come in two voices, so that a reader can tell which side erred. Validation of what a
// client sent, applied by the host ("code-mode execution ID must not be empty"), and validation of
// what a host sent, applied by the client ("gRPC code-mode host returned an empty cell ID"). Check
// applies both, by message type, for `codemode wire check`.
package grpcconv
