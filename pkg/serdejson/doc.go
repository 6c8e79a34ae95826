// Package serdejson is JSON the way Rust's serde_json does it, for Go: the one strict JSON
// tokenizer of the module, with serde_json's grammar, error texts and positions ("expected `,`
// or `}` at line 1 column 20"), and its skip mode (Scan), the one pre-scan with which the module
// bounds and measures documents before parsing them; serde_json's Value model (u64/i64/f64
// numbers, objects ordered by key) with its to_string encoder; and the streaming primitives a
// serde-derived visitor uses. The runtime of the generated wire codecs lives apart, in package
// serdeimpl (as protoimpl does for protobuf-go), on top of this package's tokenizer.
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
