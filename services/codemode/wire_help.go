package main

// The help of `codemode wire`, which answers no flags itself (wire_check.go).
func init() {
	helps["wire"] = `usage: codemode wire check < inputs.jsonl

Checks captured wire traffic, one JSON object per line on stdin, and prints one JSON line per
input on stdout: {"ok":true,"value":…} with the input's canonical encoding, or
{"ok":false,"error":"…"} with the text a strict peer would refuse it with.

Input lines:
  {"kind":"v1:<Type>","json":…}        a V1 message, e.g. v1:ClientToHost, v1:WireExecuteRequest;
                                       "generation":"host-duration" reads it as Codex 0.152-0.168
                                       does, "bounded-output" as Codex >= 0.169 (default "baseline")
  {"kind":"grpc:<Message>","json":…}   a codex.code_mode.v1 message in protobuf JSON, with the
                                       receiving peer's semantic checks
  {"kind":"frame","hex":"…"}           one WebSocket binary message holding one length-prefixed frame
  {"kind":"exec_source","input":"…"}   an exec tool input: the pragma split off and checked
  {"kind":"cell_id","generation":N,"public":"…"[,"client":"grpc"|"v1"]}
                                       a public cell ID mapped to the host's ID of generation N
                                       with the gRPC (default) or V1 client's rule

It takes no flags.

Exit status: 0 every line was read (each verdict is in the output), 1 stdin could not be read,
2 wrong invocation.

Example:
  echo '{"kind":"exec_source","input":"// @exec: {\"yield_time_ms\": 10}\ntext(1)"}' | codemode wire check
`
}
