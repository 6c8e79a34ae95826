// Package modeltool is everything the model sees of Code Mode: the `exec` and `wait` tool
// definitions and descriptions, the `// @exec:` pragma parser, the JSON Schema → TypeScript
// renderer used for nested tool declarations, and the formatter that turns a
// codemode.RuntimeResponse into the tool output the model reads.
//
// The texts, error strings and algorithms follow OpenAI Codex at the baseline named in
// docs/protocol/README.md#versions (codex-rs/code-mode-protocol/src/description.rs and json_schema_types.rs,
// codex-rs/core/src/tools/code_mode, codex-rs/utils/output-truncation and utils/string) so
// that a model trained against Codex sees byte-identical tool surfaces. Where Codex embeds a
// serde_json error message, this package reproduces serde_json's wording and positions; the
// few known divergences are named on the functions concerned.
package modeltool
