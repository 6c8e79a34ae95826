// Package toolprovider serves the tools of a manifest (tools.json) to codemode cells: each tool is
// a command that reads the call's JSON input on stdin and prints one JSON value, the result, on
// stdout.
//
// A manifest is validated against its JSON Schema (schemas/manifest/v1/tools.schema.json) and then
// checked further — schemas that compile, names defined once, programs that exist — before
// anything runs; every problem names its place in the file as a JSON Pointer
// ("tools.json: /tools/2/timeout: must be a duration like \"30s\", not \"30\"").
//
// Each call runs its command with an environment built only from the manifest (an allow-list of
// variables to pass plus fixed values), in the tool's working directory, in a process group of
// its own. The group is killed when the call's context ends (the cell no longer needs the
// result), when the tool's timeout expires, or when the command prints more than the tool's
// output limit; a tool also has a limit on the calls that run at once.
//
// Provider is the manifest's tools; Delegate is a codemode.Delegate that routes a session's tool
// calls to one or more ToolSets by name and its notifications to a callback.
package toolprovider
