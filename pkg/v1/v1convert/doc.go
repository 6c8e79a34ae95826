// Package v1convert converts between the domain contract of package codemode and the generated
// V1 wire types of gen/go/wirev1, in both directions, for the V1 host (v1host) and client
// (v1client). It is the one place that knows how a domain value looks on the V1 wire: integer
// bounds (max_output_tokens is an i32 on the wire), tool kinds and namespaces, content items,
// session limits, runtime responses and wait outcomes.
//
// Errors are Codex's texts: a conversion that Rust's TryFrom refuses fails with "out of range
// integral type conversion attempted", which the drivers wrap in their own context ("invalid
// code-mode execute request: …", "failed to encode code-mode execute request: …").
package v1convert
