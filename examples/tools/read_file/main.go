// Command read_file is an example tool for codemode's tool manifest (examples/tools.json): it
// returns the text of a file of its working directory.
//
// Input (JSON on stdin): {"path": "data/notes.txt", "max_bytes": 65536}; max_bytes is optional.
// Output (JSON on stdout): {"path": "data/notes.txt", "content": "…", "bytes": 1234,
// "truncated": false}. It never leaves its working directory: the path is opened inside an
// os.Root, so "../x" and absolute paths are refused.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"unicode/utf8"
)

type input struct {
	Path     string `json:"path"`
	MaxBytes int64  `json:"max_bytes"`
}

type output struct {
	Path      string `json:"path"`
	Content   string `json:"content"`
	Bytes     int64  `json:"bytes"`
	Truncated bool   `json:"truncated"`
}

func main() {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fail("reading the input: %v", err)
	}
	if in.MaxBytes <= 0 {
		in.MaxBytes = 64 << 10
	}
	root, err := os.OpenRoot(".")
	if err != nil {
		fail("%v", err)
	}
	f, err := root.Open(in.Path)
	if err != nil {
		fail("%v", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		fail("%v", err)
	}
	data, err := io.ReadAll(io.LimitReader(f, in.MaxBytes))
	if err != nil {
		fail("%v", err)
	}
	truncated := int64(len(data)) < info.Size()
	if truncated {
		data = dropCutCharacter(data)
	}
	if !utf8.Valid(data) {
		fail("%s is not a text file", in.Path)
	}
	out := output{Path: in.Path, Content: string(data), Bytes: info.Size(), Truncated: truncated}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fail("writing the result: %v", err)
	}
}

// dropCutCharacter removes the start of a character that max_bytes cut in two.
func dropCutCharacter(data []byte) []byte {
	for i := 1; i < utf8.UTFMax && len(data) > 0 && !utf8.Valid(data); i++ {
		data = data[:len(data)-1]
	}
	return data
}

// fail reports a problem on stderr and exits with status 1, which rejects the script's promise
// with the message.
func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "read_file: "+format+"\n", args...)
	os.Exit(1)
}
