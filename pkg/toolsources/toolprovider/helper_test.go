package toolprovider

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// helperEnv selects what the test binary does when a manifest runs it as a tool (TestMain).
const helperEnv = "TOOLPROVIDER_HELPER"

// TestMain lets the test binary serve as the tools of the tests' manifests: with helperEnv set
// (by the manifest's env.set, the only way it reaches the command) it acts as one tool and exits.
func TestMain(m *testing.M) {
	if mode, ok := os.LookupEnv(helperEnv); ok {
		os.Exit(runHelper(mode))
	}
	os.Exit(m.Run())
}

// runHelper is one helper tool. Modes:
//
//	echo        prints {"stdin": what it read, "env": its environment, "dir": its working directory}
//	print       prints $HELPER_OUT verbatim
//	fail        prints "something broke" on stderr and exits with status 3
//	fail-quiet  exits with status 3
//	noisy-fail  prints 100,000 bytes on stderr ("BEGIN", dots, "END") and exits with status 1
//	flood       prints on stdout until it is killed
//	hang        starts a hang-child (with $HELPER_FIFO), then sleeps until it is killed
//	hang-child  opens $HELPER_FIFO for writing, writes its pid and a newline, sleeps until killed
func runHelper(mode string) int {
	switch mode {
	case "echo":
		stdin, _ := io.ReadAll(os.Stdin)
		dir, _ := os.Getwd()
		out, _ := json.Marshal(map[string]any{"stdin": string(stdin), "env": os.Environ(), "dir": dir})
		os.Stdout.Write(out)
	case "print":
		fmt.Print(os.Getenv("HELPER_OUT"))
	case "fail":
		fmt.Fprintln(os.Stderr, "something broke")
		return 3
	case "fail-quiet":
		return 3
	case "noisy-fail":
		fmt.Fprint(os.Stderr, "BEGIN"+strings.Repeat(".", 100_000-len("BEGINEND"))+"END")
		return 1
	case "flood":
		line := []byte(strings.Repeat("x", 4095) + "\n")
		for {
			if _, err := os.Stdout.Write(line); err != nil {
				return 1
			}
		}
	case "hang":
		child := exec.Command(os.Args[0])
		child.Env = []string{helperEnv + "=hang-child", "HELPER_FIFO=" + os.Getenv("HELPER_FIFO")}
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		time.Sleep(time.Hour) // a hanging tool: it never answers
	case "hang-child":
		f, err := os.OpenFile(os.Getenv("HELPER_FIFO"), os.O_WRONLY, 0)
		if err != nil {
			return 1
		}
		fmt.Fprintf(f, "%d\n", os.Getpid())
		time.Sleep(time.Hour) // holds the FIFO open for as long as it lives
	default:
		fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
		return 2
	}
	return 0
}

// helperTool is a manifest entry that runs the test binary in mode. extra adds manifest fields;
// its "set" and "pass" go into env.
func helperTool(name, mode string, extra map[string]any) map[string]any {
	self, err := os.Executable()
	if err != nil {
		panic(err)
	}
	set := map[string]string{helperEnv: mode}
	env := map[string]any{"set": set}
	tool := map[string]any{"name": name, "description": "helper " + mode, "command": []string{self}, "env": env}
	for k, v := range extra {
		switch k {
		case "set":
			for name, value := range v.(map[string]string) {
				set[name] = value
			}
		case "pass":
			env["pass"] = v
		default:
			tool[k] = v
		}
	}
	return tool
}

// loadTools writes a manifest of tools into a temporary directory and loads it.
func loadTools(t *testing.T, tools ...map[string]any) *Provider {
	t.Helper()
	data, err := json.Marshal(map[string]any{"tools": tools})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(path)
	if err != nil {
		t.Fatalf("loading the manifest: %v", err)
	}
	return p
}
