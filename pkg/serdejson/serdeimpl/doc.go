// Package serdeimpl is the runtime of the generated V1 and exec-server wire codecs
// (gen/go/wirev1, gen/go/execserverwire), as protobuf-go's runtime/protoimpl is the runtime of
// protoc-gen-go's output: the document tree (Node, ParseDocument), the decode helpers with
// serde's error texts and paths, and the canonical encoder. Its API exists for generated code
// and the adapters that handle generated messages; it changes with the generators, without a
// compatibility promise. Hand-written code that wants serde_json's JSON uses package serdejson.
//
// It imports the standard library and serdejson only (the tokenizer is serdejson's
// Deserializer), so that gen/ still sits below every hand-written layer but these two.
package serdeimpl
