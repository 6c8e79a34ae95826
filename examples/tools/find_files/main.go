// Command find_files is an example tool for codemode's tool manifest (examples/tools.json): it
// lists the files under a directory of its working directory, optionally only those whose name
// matches a glob.
//
// Input (JSON on stdin): {"root": ".", "pattern": "*.csv", "max_results": 100}, every field
// optional. Output (JSON on stdout): {"files": ["data/sales.csv", …], "truncated": false}, paths
// relative to the working directory, sorted. It never leaves its working directory: paths are
// resolved inside an os.Root.
package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
)

type input struct {
	Root       string `json:"root"`
	Pattern    string `json:"pattern"`
	MaxResults int    `json:"max_results"`
}

type output struct {
	Files     []string `json:"files"`
	Truncated bool     `json:"truncated"`
}

func main() {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fail("reading the input: %v", err)
	}
	if in.Root == "" {
		in.Root = "."
	}
	if in.MaxResults <= 0 {
		in.MaxResults = 200
	}
	if _, err := path.Match(in.Pattern, ""); err != nil {
		fail("pattern %q: %v", in.Pattern, err)
	}
	root, err := os.OpenRoot(".")
	if err != nil {
		fail("%v", err)
	}
	out, err := find(root.FS(), in)
	if err != nil {
		fail("%v", err)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fail("writing the result: %v", err)
	}
}

// find walks in.Root inside fsys; fs.WalkDir visits names in lexical order, so the result is
// sorted.
func find(fsys fs.FS, in input) (output, error) {
	out := output{Files: []string{}}
	err := fs.WalkDir(fsys, path.Clean(in.Root), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if ok, _ := path.Match(in.Pattern, d.Name()); in.Pattern != "" && !ok {
			return nil
		}
		if len(out.Files) == in.MaxResults {
			out.Truncated = true
			return fs.SkipAll
		}
		out.Files = append(out.Files, p)
		return nil
	})
	return out, err
}

// fail reports a problem on stderr and exits with status 1, which rejects the script's promise
// with the message.
func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "find_files: "+format+"\n", args...)
	os.Exit(1)
}
