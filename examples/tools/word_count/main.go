// Command word_count is an example tool for codemode's tool manifest (examples/tools.json): it
// counts the lines, words and characters of a text, and its most frequent words.
//
// Input (JSON on stdin): {"text": "…"} or {"path": "data/notes.txt"} (a file of its working
// directory), and optionally "top": 5. Output (JSON on stdout): {"lines": 3, "words": 12,
// "chars": 64, "top": [{"word": "the", "count": 3}, …]}. Words are runs of letters, compared in
// lower case; ties are broken alphabetically.
package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

type input struct {
	Text *string `json:"text"`
	Path string  `json:"path"`
	Top  int     `json:"top"`
}

type wordCount struct {
	Word  string `json:"word"`
	Count int    `json:"count"`
}

type output struct {
	Lines int         `json:"lines"`
	Words int         `json:"words"`
	Chars int         `json:"chars"`
	Top   []wordCount `json:"top"`
}

func main() {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fail("reading the input: %v", err)
	}
	text, err := textOf(in)
	if err != nil {
		fail("%v", err)
	}
	if in.Top <= 0 {
		in.Top = 5
	}
	if err := json.NewEncoder(os.Stdout).Encode(count(text, in.Top)); err != nil {
		fail("writing the result: %v", err)
	}
}

// textOf returns the input's text, or the text of its file (inside the working directory).
func textOf(in input) (string, error) {
	switch {
	case in.Text != nil && in.Path != "":
		return "", fmt.Errorf("give text or path, not both")
	case in.Text != nil:
		return *in.Text, nil
	case in.Path == "":
		return "", fmt.Errorf("give text or path")
	}
	root, err := os.OpenRoot(".")
	if err != nil {
		return "", err
	}
	data, err := root.ReadFile(in.Path)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(data) {
		return "", fmt.Errorf("%s is not a text file", in.Path)
	}
	return string(data), nil
}

func count(text string, top int) output {
	out := output{Chars: utf8.RuneCountInString(text), Top: []wordCount{}}
	if text != "" {
		out.Lines = strings.Count(text, "\n")
		if !strings.HasSuffix(text, "\n") {
			out.Lines++
		}
	}
	counts := map[string]int{}
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) }) {
		counts[strings.ToLower(w)]++
		out.Words++
	}
	for w, n := range counts {
		out.Top = append(out.Top, wordCount{w, n})
	}
	slices.SortFunc(out.Top, func(a, b wordCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Word, b.Word))
	})
	out.Top = out.Top[:min(top, len(out.Top))]
	return out
}

// fail reports a problem on stderr and exits with status 1, which rejects the script's promise
// with the message.
func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "word_count: "+format+"\n", args...)
	os.Exit(1)
}
