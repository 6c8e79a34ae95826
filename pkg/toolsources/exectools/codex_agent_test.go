package exectools

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/testenv"
	"github.com/codemodehq/codemode/pkg/testenv/fakemodel"
)

// markerValue is in the environment of codemode's exec-server only: a command that prints it
// ran there, not in Codex's own process.
const markerValue = "ran-in-codemode-exec-server"

// TestCodexAgentRunsCommandsThroughCodemodeExecServer: Codex (`codex exec`, a scripted model)
// pointed at codemode's exec-server with CODEX_EXEC_SERVER_URL runs the model's command there.
func TestCodexAgentRunsCommandsThroughCodemodeExecServer(t *testing.T) {
	codex := testenv.FindCodex(t)
	url := startWebSocketExecServer(t, append(os.Environ(), "CODEMODE_MARKER="+markerValue))
	model, err := fakemodel.Start(
		fakemodel.Exec("call-1", `const r = await tools.exec_command({cmd: "printf '%s|%s' \"$CODEMODE_MARKER\" \"$(pwd)\"", tty: false, login: false}); text(r.output);`),
		fakemodel.Say("done"))
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	home := t.TempDir()
	if err := fakemodel.WriteHome(home, model.URL); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex.Agent, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "run the script")
	cmd.Dir, cmd.Env = work, append(fakemodel.Env(home), "CODEX_EXEC_SERVER_URL="+url)
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("codex exec: %v\n%s", err, out)
	}
	if err := model.Err(); err != nil {
		t.Fatalf("the model: %v\n%s", err, out)
	}
	reqs := model.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d requests\n%s", len(reqs), out)
	}
	if got := string(reqs[1]); !strings.Contains(got, markerValue+"|"+work) {
		t.Errorf("the command's output did not come from codemode's exec-server in %s:\n%s\nCodex:\n%s", work, got, out)
	}
}

// startWebSocketExecServer runs `codemode exec-server --listen ws://127.0.0.1:0` with env and
// returns the address it prints.
func startWebSocketExecServer(t *testing.T, env []string) string {
	t.Helper()
	cmd := exec.Command(codemodeBin, "exec-server", "--listen", "ws://127.0.0.1:0")
	cmd.Env, cmd.Stderr = env, os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "ws://") {
		t.Fatalf("exec-server printed %q, %v", line, err)
	}
	return strings.TrimSpace(line)
}
