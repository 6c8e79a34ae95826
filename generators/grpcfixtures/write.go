package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	code_modev1 "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
)

// buildAll returns the fixtures of the codex.code_mode.v1 package.
func buildAll() ([]fixture, error) {
	return buildFixtures(code_modev1.File_codex_code_mode_v1_code_mode_proto)
}

// writeTree replaces dir with the fixture tree: dir/<message>/<case>.json. Clearing dir first
// drops the files of deleted messages and cases.
func writeTree(dir string, fixtures []fixture) error {
	if err := clearTree(dir); err != nil {
		return err
	}
	for _, f := range fixtures {
		data, err := encodeFixture(f.value)
		if err != nil {
			return fmt.Errorf("encode %s/%s: %w", f.message, f.name, err)
		}
		path := filepath.Join(dir, f.message, f.name+".json")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	return nil
}

// clearTree deletes dir if it holds nothing but a fixture tree, so a mistyped -out cannot delete
// anything else. A missing dir is fine.
func clearTree(dir string) error {
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		if parts := strings.Split(filepath.ToSlash(rel), "/"); len(parts) != 2 || filepath.Ext(rel) != ".json" {
			return fmt.Errorf("refusing to clear %s: %s is not a <message>/<case>.json fixture", dir, path)
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("clear %s: %w", dir, err)
	}
	return nil
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
