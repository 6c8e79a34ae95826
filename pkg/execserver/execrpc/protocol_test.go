package execrpc_test

import (
	"strings"
	"testing"

	wire "github.com/codemodehq/codemode/gen/go/execserverwire"
)

// The tests named after Codex's exec-server-protocol/src/protocol.rs tests (docs/protocol/README.md#codex-test-suites) that are
// about the wire types (gen/go/execserverwire, generated from schemas/jsonschema/execserver).
// local_environment_info_* are in pkg/execserver/execserver, which computes that information.

func roundTrip[T wire.Message](t *testing.T, decode func([]byte) (T, error), in string) T {
	t.Helper()
	v, err := decode([]byte(in))
	if err != nil {
		t.Fatalf("decode %s: %v", in, err)
	}
	if got := string(wire.Marshal(v)); got != in {
		t.Errorf("round trip\n got %s\nwant %s", got, in)
	}
	return v
}

func Test_exec_params_keeps_proxy_launch_separate_from_sandbox_facts(t *testing.T) {
	in := `{"processId":"managed-network","metadata":{"threadId":"thread-1","toolCallId":"call-1"},"argv":["true"],"cwd":"file:///work","envPolicy":null,"env":{},"tty":false,"pipeStdin":false,"arg0":null,"sandbox":null,"enforceManagedNetwork":true,"managedNetwork":{"loopbackPorts":[43123,48081],"allowLocalBinding":false,"domainPolicy":{"allowedDomains":["**.example.com"],"deniedDomains":["blocked.example.com"]}}}`
	p := roundTrip(t, wire.DecodeExecParams, in)
	// metadata is nested, not flattened into the params.
	if p.Metadata == nil || p.Metadata.ThreadId == nil || *p.Metadata.ThreadId != "thread-1" {
		t.Errorf("metadata %+v", p.Metadata)
	}
	if p.ManagedNetwork == nil || len(p.ManagedNetwork.LoopbackPorts) != 2 || p.ManagedNetwork.DomainPolicy == nil {
		t.Errorf("managedNetwork %+v", p.ManagedNetwork)
	}
	// A legacy managed network context without domainPolicy.
	legacyContext := strings.Replace(in, `,"domainPolicy":{"allowedDomains":["**.example.com"],"deniedDomains":["blocked.example.com"]}`, "", 1)
	lc, err := wire.DecodeExecParams([]byte(legacyContext))
	if err != nil || lc.ManagedNetwork.DomainPolicy != nil {
		t.Errorf("legacy context: %v %+v", err, lc.ManagedNetwork)
	}
	// Legacy params without the newer fields decode with their defaults; enforcement without
	// managedNetwork stays enforced (the executor must then fail closed).
	legacy, err := wire.DecodeExecParams([]byte(`{"processId":"p","argv":["true"],"cwd":"file:///work","env":{},"tty":false,"enforceManagedNetwork":true}`))
	if err != nil {
		t.Fatal(err)
	}
	if !legacy.EnforceManagedNetwork || legacy.ManagedNetwork != nil || legacy.Metadata != nil || legacy.PipeStdin {
		t.Errorf("legacy %+v", legacy)
	}
	if got := string(wire.Marshal(legacy)); !strings.Contains(got, `"managedNetwork":null`) || strings.Contains(got, "managed_network") {
		t.Errorf("legacy re-encoded %s", got)
	}
}

func Test_environment_info_accepts_legacy_response_without_cwd(t *testing.T) {
	info, err := wire.DecodeEnvironmentInfo([]byte(`{"shell":{"name":"zsh","path":"/bin/zsh"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if info.Shell != (wire.ShellInfo{Name: "zsh", Path: "/bin/zsh"}) || info.Cwd != nil || info.Capabilities != nil {
		t.Errorf("%+v", info)
	}
}

func Test_environment_capabilities_accept_legacy_response_without_environment_config_read(t *testing.T) {
	c, err := wire.DecodeEnvironmentCapabilities([]byte(`{"networkProxyLaunch":true,"capabilityDiscoverySandbox":false}`))
	if err != nil {
		t.Fatal(err)
	}
	if !c.NetworkProxyLaunch || c.EnvironmentConfigRead || c.HttpHeaderEnvVars || c.SandboxedFileStreaming || c.ShellSnapshotV2 {
		t.Errorf("%+v", c)
	}
	if got := string(wire.Marshal(c)); got != `{"networkProxyLaunch":true,"networkProxyReviewDomains":false,"networkProxyTransparentTcp":false,"credentialMasking":false,"credentialMaskingCustomProviders":false,"capabilityDiscoverySandbox":false,"fsWatchMissing":false,"capabilityDiscoveryV2":false,"environmentConfigRead":false,"httpHeaderEnvVars":false,"sandboxedFileStreaming":false,"fileWriteStreaming":false,"shellSnapshotV2":false,"windowsMxc":false,"linuxRootWritePreservesDevices":false,"linuxApprovedRootWritePreservesRestrictions":false}` {
		t.Errorf("re-encoded %s", got)
	}
}

// What `codex exec-server --listen stdio` 0.171 answered to environment/info, byte for byte.
func Test_environment_info_preserves_executor_metadata(t *testing.T) {
	roundTrip(t, wire.DecodeEnvironmentInfo, `{"shell":{"name":"bash","path":"/bin/bash"},"executorVersion":"0.171.0","providerId":"sha256:d9abac9af8012b2dca3f4cfcc77c89636c9b8f757089a5454c39e60264dabed8","cwd":"file:///work/main","userHomeDir":"file:///root","platformOs":"linux","prependPathDirs":["file:///work/main/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/codex-path"],"temporaryDirectories":[],"tempDir":"file:///tmp","capabilities":{"networkProxyLaunch":true,"networkProxyReviewDomains":true,"networkProxyTransparentTcp":true,"credentialMasking":true,"credentialMaskingCustomProviders":true,"capabilityDiscoverySandbox":true,"fsWatchMissing":true,"capabilityDiscoveryV2":true,"environmentConfigRead":true,"httpHeaderEnvVars":true,"sandboxedFileStreaming":true,"fileWriteStreaming":true,"shellSnapshotV2":true,"windowsMxc":false,"linuxRootWritePreservesDevices":true,"linuxApprovedRootWritePreservesRestrictions":true}}`)
}

// A path is a URI string on the wire: the exec-server parses it where it is used (Codex's texts
// are asserted in pkg/execserver/execserver), so a native path decodes and is refused there.
func Test_filesystem_protocol_carries_paths_as_strings(t *testing.T) {
	p, err := wire.DecodeFsReadFileParams([]byte(`{"path":"/work/native-file.txt","sandbox":null}`))
	if err != nil || p.Path != "/work/native-file.txt" {
		t.Errorf("native path: %+v, %v", p, err)
	}
}

// The sandbox context (codex_file_system::FileSystemSandboxContext) is carried opaquely: its
// snake_case permission entries survive exactly.
func Test_filesystem_protocol_round_trips_permission_entries(t *testing.T) {
	roundTrip(t, wire.DecodeFsReadFileParams, `{"path":"file:///work/a.txt","sandbox":{"cwd":"file:///work","permissions":{"file_system":{"entries":[{"path":{"type":"path","path":"file:///work/out"},"access":"write","missing_path_behavior":"skip"}]},"network":{"enabled":false}},"windowsSandboxProxySettingsMode":"preserve"}}`)
}

func Test_filesystem_protocol_round_trips_legacy_policy_paths_as_uris(t *testing.T) {
	roundTrip(t, wire.DecodeFsWriteFileParams, `{"path":"file:///work/a.txt","dataBase64":"aGk=","sandbox":{"cwd":"file:///work","legacyPolicy":{"type":"workspace-write","writable_roots":["file:///work","file:///tmp"]}}}`)
}

func Test_http_request_timeout_treats_omitted_and_null_as_no_timeout(t *testing.T) {
	for in, want := range map[string]*uint64{
		`{"method":"GET","url":"https://example.test","requestId":"req-omitted-timeout"}`:                   nil,
		`{"method":"GET","url":"https://example.test","requestId":"req-null-timeout","timeoutMs":null}`:     nil,
		`{"method":"GET","url":"https://example.test","requestId":"req-explicit-timeout","timeoutMs":1234}`: ptr(uint64(1234)),
	} {
		p, err := wire.DecodeHttpRequestParams([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if (p.TimeoutMs == nil) != (want == nil) || (want != nil && *p.TimeoutMs != *want) {
			t.Errorf("%s: timeoutMs %v", in, p.TimeoutMs)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func Test_exited_notification_accepts_legacy_payload_without_sandbox_denied(t *testing.T) {
	n, err := wire.DecodeExecExitedNotification([]byte(`{"processId":"proc-1","seq":3,"exitCode":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if n.SandboxDenied != nil || n.ExitCode != 1 || n.Seq != 3 {
		t.Errorf("%+v", n)
	}
}

func Test_exec_response_distinguishes_unknown_from_explicitly_unsandboxed(t *testing.T) {
	unknown := roundTrip(t, wire.DecodeExecResponse, `{"processId":"proc-1"}`)
	none := roundTrip(t, wire.DecodeExecResponse, `{"processId":"proc-1","sandboxType":"none"}`)
	if unknown.SandboxType != nil || none.SandboxType == nil || *none.SandboxType != "none" {
		t.Errorf("unknown %v, none %v", unknown.SandboxType, none.SandboxType)
	}
}
