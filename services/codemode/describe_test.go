package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/modeltool"
	"github.com/codemodehq/codemode/pkg/toolsources/toolprovider"
)

// describe prints the exec and wait descriptions a model is shown, with each tool's TypeScript
// declaration rendered from its schemas (testdata/describe/*.txt).
func TestDescribePrintsWhatTheModelIsShown(t *testing.T) {
	cases := map[string][]string{
		"demo.txt":     {"describe"},
		"examples.txt": {"describe", "--tools", "../../examples/tools.json"},
	}
	for golden, args := range cases {
		t.Run(golden, func(t *testing.T) {
			got := runArgs(t, "", args...)
			if got.status != exitOK || got.stderr != "" {
				t.Fatalf("exit status %d, stderr %q", got.status, got.stderr)
			}
			checkGolden(t, "describe/"+golden, got.stdout)
		})
	}
}

// describe --json prints the Responses API tools: exec (custom, with the code-mode-only
// description) then wait (function).
func TestDescribeJSONIsTheResponsesAPITools(t *testing.T) {
	got := runArgs(t, "", "describe", "--tools", "../../examples/tools.json", "--json")
	if got.status != exitOK || got.stderr != "" {
		t.Fatalf("exit status %d, stderr %q", got.status, got.stderr)
	}
	var tools []struct {
		Type        string `json:"type"`
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	if err := json.Unmarshal([]byte(got.stdout), &tools); err != nil {
		t.Fatalf("%v:\n%s", err, got.stdout)
	}
	p, err := toolprovider.Load("../../examples/tools.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 2 || tools[0].Type != "custom" || tools[0].Name != "exec" || tools[1].Type != "function" || tools[1].Name != "wait" ||
		tools[0].Description != modeltool.ExecToolDescription(p.Definitions()) || tools[1].Description != modeltool.WaitToolDescription() {
		t.Errorf("tools:\n%s", got.stdout)
	}
}

func TestDescribeRefusesABadManifest(t *testing.T) {
	got := runArgs(t, "", "describe", "--tools", "testdata/run/bad_tools.json")
	if got.status != exitUsage || got.stdout != "" || !strings.HasPrefix(got.stderr, "testdata/run/bad_tools.json: /tools/1/timeout: ") {
		t.Errorf("exit status %d, stdout %q, stderr %q", got.status, got.stdout, got.stderr)
	}
}
