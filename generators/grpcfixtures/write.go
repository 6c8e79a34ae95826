package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	code_modev1 "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/generators/internal/emit"
)

// buildAll returns the fixtures of the codex.code_mode.v1 package.
func buildAll() ([]fixture, error) {
	return buildFixtures(code_modev1.File_codex_code_mode_v1_code_mode_proto)
}

// writeTree replaces dir with the fixture tree: dir/<message>/<case>.json. Clearing dir first
// drops the files of deleted messages and cases; a dir holding anything but such files is
// refused, so a mistyped -out cannot delete anything else.
func writeTree(dir string, fixtures []fixture) error {
	files := make(map[string][]byte, len(fixtures))
	for _, f := range fixtures {
		data, err := encodeFixture(f.value)
		if err != nil {
			return fmt.Errorf("encode %s/%s: %w", f.message, f.name, err)
		}
		files[f.message+"/"+f.name+".json"] = data
	}
	return emit.ReplaceTree(dir, files, isFixturePath, "a <message>/<case>.json fixture")
}

// isFixturePath tells whether a file under the tree root is a <message>/<case>.json fixture.
func isFixturePath(rel string) bool {
	return len(strings.Split(rel, "/")) == 2 && path.Ext(rel) == ".json"
}

// encodeFixture renders m as protojson (lowerCamelCase names, the default of both protojson and
// protobuf-es) with stable formatting: protojson deliberately randomizes its whitespace, so the
// output is re-indented (two spaces, a trailing newline). Key order is protojson's field order.
func encodeFixture(m proto.Message) ([]byte, error) {
	compact, err := protojson.Marshal(m)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}
