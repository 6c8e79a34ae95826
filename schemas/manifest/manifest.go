// Package manifest holds the JSON Schemas of codemode's configuration files, embedded so the
// programs that load those files validate them against the very documents published here.
//
// It is data, not code: schemas/ is the truth, and pkg/toolsources/toolprovider compiles ToolsV1 with its
// own formats (go-duration, identifier, env-name).
package manifest

import _ "embed"

// ToolsV1 is the JSON Schema of a tool manifest (tools.json), version 1. A string, so no
// importer can change it for the others.
//
//go:embed v1/tools.schema.json
var ToolsV1 string
