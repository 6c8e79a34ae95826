// Package emit is what the generators share about emitting code: writing their output (a
// directory of generated files next to hand-written ones, or a tree they own entirely), and the
// names under which generated code calls the runtime (serdejson/serdeimpl in Go, serdejson/ts in
// TypeScript), which both languages spell alike.
package emit

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// WriteFiles writes files, keyed by slash-separated paths relative to root, creating
// directories as needed. It writes in sorted order, so a failure leaves a predictable prefix.
func WriteFiles(root string, files map[string][]byte) error {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(root, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("create %s: %w", filepath.Dir(p), err)
		}
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
	}
	return nil
}

// SyncDir writes files (base names) into dir and deletes the files matching pattern that begin
// with header (the generator's "Code generated … DO NOT EDIT." line) but are no longer among
// files; hand-written files next to them are left alone.
func SyncDir(dir, pattern, header string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	old, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		return fmt.Errorf("list %s: %w", dir, err)
	}
	for _, p := range old {
		if _, current := files[filepath.Base(p)]; current {
			continue
		}
		data, err := os.ReadFile(p)
		if err == nil && bytes.HasPrefix(data, []byte(header)) {
			if err := os.Remove(p); err != nil {
				return fmt.Errorf("remove stale %s: %w", p, err)
			}
		}
	}
	return WriteFiles(dir, files)
}

// ReplaceTree replaces the tree under root with files: everything the generator wrote before
// goes, so deleted cases do not linger. owns tells whether a file found there (slash-separated
// path relative to root) is one the generator writes, and what describes such files; a tree
// holding anything else is refused untouched, so that a mistyped output flag cannot delete a
// directory of something else. A missing root is fine.
func ReplaceTree(root string, files map[string][]byte, owns func(rel string) bool, what string) error {
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		if !owns(filepath.ToSlash(rel)) {
			return fmt.Errorf("refusing to clear %s: %s is not %s", root, path, what)
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.RemoveAll(root); err != nil {
		return fmt.Errorf("clear %s: %w", root, err)
	}
	return WriteFiles(root, files)
}

// RelativePath is target relative to base, both relative to the working directory or absolute:
// how one generated file refers to another output or to the runtime.
func RelativePath(base, target string) (string, error) {
	absBase, err := filepath.Abs(base)
	if err != nil {
		return "", err
	}
	absTarget, err := filepath.Abs(target)
	if err != nil {
		return "", err
	}
	return filepath.Rel(absBase, absTarget)
}

// RuntimeDecoder returns the name of the runtime function that decodes a schema property of the
// given kind ("string", "bool", "int" with intKind "i64", "u32", …, or "value"): DecodeString, DecodeI64,
// DecodeJSONValue. Go calls it as serdeimpl.<name>, TypeScript as the same name with a lower-case
// first letter (decodeI64). ok is false for kinds whose decoder is generated (refs, enums,
// arrays).
func RuntimeDecoder(kind, intKind string) (name string, ok bool) {
	switch kind {
	case "string":
		return "DecodeString", true
	case "int":
		if intKind == "" {
			return "", false
		}
		return "Decode" + strings.ToUpper(intKind[:1]) + intKind[1:], true
	case "value":
		return "DecodeJSONValue", true
	case "bool":
		return "DecodeBool", true
	}
	return "", false
}

// LowerFirst lower-cases the first letter of an exported runtime name, giving its TypeScript
// spelling.
func LowerFirst(name string) string {
	if name == "" {
		return name
	}
	return strings.ToLower(name[:1]) + name[1:]
}
