// Package serdejson is JSON the way Rust's serde_json does it, for Go: the one strict JSON
// tokenizer of the module, with serde_json's grammar, error texts and positions ("expected `,`
// or `}` at line 1 column 20"); serde_json's Value model (u64/i64/f64 numbers, objects ordered by
// key) with its to_string encoder; the streaming primitives a serde-derived visitor uses; and the
// runtime of the generated V1 wire codecs (gen/go/wirev1), which import this package and nothing
// else hand-written.
//
// Codex, the peer of every codemode transport, is written in Rust and reports serde_json's
// messages to the model and to its peers. This package reproduces them so that codemode's
// texts are byte-identical where Codex embeds one; the known divergences are named on the
// functions concerned.
//
// The package depends on the standard library only (a test enforces it): generated code sits
// below pkg/ in the module's layering, and so does its runtime, as protobuf-go's protoimpl sits
// below the code protoc-gen-go writes.
package serdejson
