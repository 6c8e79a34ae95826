package fakemodel

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WriteHome writes a CODEX_HOME in dir whose config points Codex at the scripted model at
// baseURL, turns code mode on and keeps Codex off the network (no plugins, apps, analytics or
// update checks). extra is appended to the [features] table ("code_mode_host_grpc = false").
func WriteHome(dir, baseURL string, extra ...string) error {
	features := append([]string{
		"code_mode = true", "plugins = false", "remote_plugin = false", "plugin_sharing = false",
		"apps = false", "in_app_updates = false",
	}, extra...)
	config := fmt.Sprintf(`model = "fake-model"
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = %q
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[features]
%s
`, baseURL, strings.Join(features, "\n"))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("fakemodel: CODEX_HOME: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(config), 0o600); err != nil {
		return fmt.Errorf("fakemodel: CODEX_HOME: %w", err)
	}
	return nil
}

// Env is the environment for a Codex process using the CODEX_HOME home: the current one, with
// a dead proxy so nothing leaves the machine, and the loopback exempt so the scripted model is
// reached.
func Env(home string) []string {
	env := []string{}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(name) {
		case "CODEX_HOME", "HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY", "OPENAI_API_KEY":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "CODEX_HOME="+home, "HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9",
		"ALL_PROXY=http://127.0.0.1:9", "NO_PROXY=127.0.0.1,localhost")
}
