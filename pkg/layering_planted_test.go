package pkg_test

import (
	"slices"
	"strings"
	"testing"
)

// Edge constructors for fabricated import graphs.

func own(from, to string) edge    { return edge{from: from, to: to, kind: ownPkg} }
func stdlib(from, to string) edge { return edge{from: from, to: to, kind: stdPkg} }
func ext(from, to, module string) edge {
	return edge{from: from, to: to, kind: externalPkg, module: module}
}

// inTest marks e as made by _test.go files only.
func inTest(e edge) edge {
	e.test = true
	return e
}

// plantedCase is a fabricated import graph and the violation keys it must produce.
type plantedCase struct {
	name  string
	edges []edge
	want  []string // "from → to [rule]", " (test)" after to for imports of _test.go files
}

// planted are fabricated import graphs, checked against the real rule table. Each lists the
// violations it must produce, and nothing else: the allowed edges next to the planted ones
// prove that a rule does not simply reject everything.
var planted = []plantedCase{
	// The three violations the previous layering test let pass (issue 8).
	{
		name: "issue 8: the domain package imports connect and protobuf",
		edges: []edge{
			stdlib("pkg/codemode", "context"),
			ext("pkg/codemode", "connectrpc.com/connect/v2", connect),
			ext("pkg/codemode", "google.golang.org/protobuf/proto", protobuf),
		},
		want: []string{
			"pkg/codemode → connectrpc.com/connect/v2 [pkg/codemode]",
			"pkg/codemode → google.golang.org/protobuf/proto [pkg/codemode]",
		},
	},
	{
		name:  "issue 8: exectool imports a generator",
		edges: []edge{own("pkg/exectool", "pkg/codemode"), own("pkg/exectool", "generators/wiregen")},
		want:  []string{"pkg/exectool → generators/wiregen [pkg/exectool/...]"},
	},
	{
		name:  "issue 8: the conformance suite imports exectool",
		edges: []edge{own("pkg/codemode/codemodetest", "pkg/codemode"), own("pkg/codemode/codemodetest", "pkg/exectool")},
		want:  []string{"pkg/codemode/codemodetest → pkg/exectool [pkg/codemode/codemodetest]"},
	},

	// One or more per rule.
	{
		name: "pkg/convertv1: the conversions import a transport",
		edges: []edge{
			own("pkg/convertv1", "gen/go/wirev1"),
			own("pkg/convertv1", "pkg/codemode"),
			own("pkg/convertv1", "pkg/transportv1"),
		},
		want: []string{"pkg/convertv1 → pkg/transportv1 [pkg/convertv1]"},
	},
	{
		name: "pkg/transportv1: a transport imports the domain contract",
		edges: []edge{
			own("pkg/transportv1", "pkg/frame"),
			ext("pkg/transportv1", "github.com/coder/websocket", websocket),
			own("pkg/transportv1", "pkg/codemode"),
		},
		want: []string{"pkg/transportv1 → pkg/codemode [pkg/transportv1]"},
	},
	{
		name: "pkg/clientv1: the client imports the host driver outside tests",
		edges: []edge{
			own("pkg/clientv1", "pkg/transportv1"),
			inTest(own("pkg/clientv1", "pkg/hostv1")),
			own("pkg/clientv1", "pkg/hostv1"),
		},
		want: []string{"pkg/clientv1 → pkg/hostv1 [pkg/clientv1]"},
	},
	{
		name: "pkg/hostv1: the host imports the runtime outside tests",
		edges: []edge{
			own("pkg/hostv1", "pkg/convertv1"),
			inTest(own("pkg/hostv1", "pkg/jsruntime")),
			own("pkg/hostv1", "pkg/jsruntime"),
		},
		want: []string{"pkg/hostv1 → pkg/jsruntime [pkg/hostv1]"},
	},
	{
		name:  "pkg/codemode: the domain imports another package of the module",
		edges: []edge{inTest(own("pkg/codemode", "pkg/frame"))},
		want:  []string{"pkg/codemode → pkg/frame (test) [pkg/codemode]"},
	},
	{
		name:  "pkg/codemode/codemodetest: the conformance suite imports a runtime engine",
		edges: []edge{ext("pkg/codemode/codemodetest", "github.com/fastschema/qjs", qjs)},
		want:  []string{"pkg/codemode/codemodetest → github.com/fastschema/qjs [pkg/codemode/codemodetest]"},
	},
	{
		name:  "pkg/exectool: a subpackage imports generated wire types",
		edges: []edge{own("pkg/exectool/render", "pkg/serdejson"), own("pkg/exectool/render", "gen/go/wirev1")},
		want:  []string{"pkg/exectool/render → gen/go/wirev1 [pkg/exectool/...]"},
	},
	{
		name: "pkg/jsruntime: generated code, and the conformance suite outside tests",
		edges: []edge{
			ext("pkg/jsruntime", "github.com/tetratelabs/wazero/experimental", wazero),
			own("pkg/jsruntime", "gen/go/wirev1"),
			own("pkg/jsruntime", "pkg/codemode/codemodetest"),
			inTest(own("pkg/jsruntime", "pkg/codemode/codemodetest")),
			ext("pkg/jsruntime", "connectrpc.com/connect/v2", connect),
		},
		want: []string{
			"pkg/jsruntime → gen/go/wirev1 [pkg/jsruntime/...]",
			"pkg/jsruntime → pkg/codemode/codemodetest [pkg/jsruntime/...]",
			"pkg/jsruntime → connectrpc.com/connect/v2 [pkg/jsruntime/...]",
		},
	},
	{
		name: "pkg/toolprovider: the tool provider imports a runtime, a transport's generated types, a binary",
		edges: []edge{
			own("pkg/toolprovider", "schemas/manifest"),
			ext("pkg/toolprovider", "github.com/santhosh-tekuri/jsonschema/v6", jsonschema),
			own("pkg/toolprovider", "pkg/jsruntime"),
			own("pkg/toolprovider", "gen/go/wirev1"),
			own("pkg/toolprovider", "tools/codemode"),
		},
		want: []string{
			"pkg/toolprovider → pkg/jsruntime [pkg/toolprovider]",
			"pkg/toolprovider → gen/go/wirev1 [pkg/toolprovider]",
			"pkg/toolprovider → tools/codemode [pkg/toolprovider]",
		},
	},
	{
		name: "schemas/...: a schema package imports code",
		edges: []edge{
			stdlib("schemas/manifest", "embed"),
			own("schemas/manifest", "pkg/codemode"),
			ext("schemas/manifest", "github.com/santhosh-tekuri/jsonschema/v6", jsonschema),
		},
		want: []string{
			"schemas/manifest → pkg/codemode [schemas/...]",
			"schemas/manifest → github.com/santhosh-tekuri/jsonschema/v6 [schemas/...]",
		},
	},
	{
		name: "examples/...: an example tool imports the module",
		edges: []edge{
			stdlib("examples/tools/read_file", "os"),
			own("examples/tools/read_file", "pkg/toolprovider"),
		},
		want: []string{"examples/tools/read_file → pkg/toolprovider [examples/...]"},
	},
	{
		name: "pkg/mcptools: the MCP tool source imports a runtime outside its tests, a host adapter, another MCP library",
		edges: []edge{
			own("pkg/mcptools", "pkg/toolprovider"),
			ext("pkg/mcptools", "github.com/modelcontextprotocol/go-sdk/mcp", mcpSDK),
			inTest(own("pkg/mcptools", "pkg/jsruntime")),
			own("pkg/mcptools", "pkg/jsruntime"),
			own("pkg/mcptools", "pkg/hostv1"),
			ext("pkg/mcptools", "github.com/coder/websocket", websocket),
		},
		want: []string{
			"pkg/mcptools → pkg/jsruntime [pkg/mcptools]",
			"pkg/mcptools → pkg/hostv1 [pkg/mcptools]",
			"pkg/mcptools → github.com/coder/websocket [pkg/mcptools]",
		},
	},
	{
		name: "examples/tools/mcp_notes: the example MCP server imports the module",
		edges: []edge{
			ext("examples/tools/mcp_notes", "github.com/modelcontextprotocol/go-sdk/mcp", mcpSDK),
			own("examples/tools/mcp_notes", "pkg/mcptools"),
		},
		want: []string{"examples/tools/mcp_notes → pkg/mcptools [examples/tools/mcp_notes]"},
	},
	{
		name: "pkg/toolsources: the manifest opener imports a runtime, a host adapter or a wire type",
		edges: []edge{
			own("pkg/toolsources", "pkg/mcptools"),
			own("pkg/toolsources", "pkg/exectoolset"),
			own("pkg/toolsources", "pkg/jsruntime"),
			own("pkg/toolsources", "pkg/grpchost"),
			own("pkg/toolsources", "gen/go/execserverwire"),
		},
		want: []string{
			"pkg/toolsources → pkg/jsruntime [pkg/toolsources]",
			"pkg/toolsources → pkg/grpchost [pkg/toolsources]",
			"pkg/toolsources → gen/go/execserverwire [pkg/toolsources]",
		},
	},
	{
		name: "pkg/execrpc: the exec-server codec imports the V1 wire or a method's server",
		edges: []edge{
			own("pkg/execrpc", "gen/go/execserverwire"),
			own("pkg/execrpc", "gen/go/wirev1"),
			own("pkg/execrpc", "pkg/execserver"),
		},
		want: []string{"pkg/execrpc → gen/go/wirev1 [pkg/execrpc]", "pkg/execrpc → pkg/execserver [pkg/execrpc]"},
	},
	{
		name: "pkg/execserver: the exec-server imports the domain contract",
		edges: []edge{
			own("pkg/execserver", "pkg/execrpc"),
			own("pkg/execserver", "pkg/codemode"),
		},
		want: []string{"pkg/execserver → pkg/codemode [pkg/execserver]"},
	},
	{
		name: "pkg/exectoolset: the client imports the server or the runtime outside tests",
		edges: []edge{
			own("pkg/exectoolset", "pkg/execrpc"),
			inTest(own("pkg/exectoolset", "pkg/jsruntime")),
			own("pkg/exectoolset", "pkg/execserver"),
		},
		want: []string{"pkg/exectoolset → pkg/execserver [pkg/exectoolset]"},
	},
	{
		name: "pkg/recent: the leaf imports a protocol",
		edges: []edge{
			stdlib("pkg/recent", "sync"),
			own("pkg/recent", "gen/go/wirev1"),
		},
		want: []string{"pkg/recent → gen/go/wirev1 [pkg/recent]"},
	},
	{
		name: "pkg/grpcconv: the conversion package imports a transport, a runtime or the V1 wire",
		edges: []edge{
			own("pkg/grpcconv", "gen/go/pb/codex/code_mode/v1"),
			own("pkg/grpcconv", "pkg/serdejson"),
			ext("pkg/grpcconv", "connectrpc.com/connect/v2", connect),
			own("pkg/grpcconv", "pkg/jsruntime"),
			own("pkg/grpcconv", "gen/go/wirev1"),
		},
		want: []string{
			"pkg/grpcconv → connectrpc.com/connect/v2 [pkg/grpcconv]",
			"pkg/grpcconv → pkg/jsruntime [pkg/grpcconv]",
			"pkg/grpcconv → gen/go/wirev1 [pkg/grpcconv]",
		},
	},
	{
		name: "pkg/grpchost: the host names a runtime, the V1 wire or the client outside tests",
		edges: []edge{
			own("pkg/grpchost", "gen/go/pb/codex/code_mode/v1/code_modev1connect"),
			ext("pkg/grpchost", "connectrpc.com/connect/v2", connect),
			inTest(own("pkg/grpchost", "pkg/jsruntime")),
			own("pkg/grpchost", "pkg/jsruntime"),
			own("pkg/grpchost", "gen/go/wirev1"),
			own("pkg/grpchost", "pkg/grpcclient"),
		},
		want: []string{
			"pkg/grpchost → pkg/jsruntime [pkg/grpchost]",
			"pkg/grpchost → gen/go/wirev1 [pkg/grpchost]",
			"pkg/grpchost → pkg/grpcclient [pkg/grpchost]",
		},
	},
	{
		name: "pkg/grpcclient: the client imports the host or a runtime outside tests",
		edges: []edge{
			own("pkg/grpcclient", "pkg/grpcconv"),
			inTest(own("pkg/grpcclient", "pkg/grpchost")),
			own("pkg/grpcclient", "pkg/grpchost"),
			own("pkg/grpcclient", "pkg/jsruntime"),
			own("pkg/grpcclient", "gen/go/wirev1"),
		},
		want: []string{
			"pkg/grpcclient → pkg/grpchost [pkg/grpcclient]",
			"pkg/grpcclient → pkg/jsruntime [pkg/grpcclient]",
			"pkg/grpcclient → gen/go/wirev1 [pkg/grpcclient]",
		},
	},
	{
		name: "pkg/hostprogram: the host program imports generated wire types, a client, a service",
		edges: []edge{
			own("pkg/hostprogram", "pkg/hostv1"),
			ext("pkg/hostprogram", "github.com/oklog/run", oklogRun),
			inTest(own("pkg/hostprogram", "pkg/testenv")),
			own("pkg/hostprogram", "gen/go/wirev1"),
			own("pkg/hostprogram", "pkg/clientv1"),
			own("pkg/hostprogram", "services/codemode-host"),
		},
		want: []string{
			"pkg/hostprogram → gen/go/wirev1 [pkg/hostprogram]",
			"pkg/hostprogram → pkg/clientv1 [pkg/hostprogram]",
			"pkg/hostprogram → services/codemode-host [pkg/hostprogram]",
		},
	},
	{
		name: "pkg/mcpserver: the MCP server imports wire types, a host adapter or a client; the goleak outside tests",
		edges: []edge{
			own("pkg/mcpserver", "pkg/exectool"),
			ext("pkg/mcpserver", "github.com/modelcontextprotocol/go-sdk/mcp", mcpSDK),
			inTest(ext("pkg/mcpserver", "go.uber.org/goleak", goleak)),
			own("pkg/mcpserver", "gen/go/wirev1"),
			own("pkg/mcpserver", "pkg/hostprogram"),
			own("pkg/mcpserver", "pkg/grpcclient"),
			ext("pkg/mcpserver", "go.uber.org/goleak", goleak),
		},
		want: []string{
			"pkg/mcpserver → gen/go/wirev1 [pkg/mcpserver]",
			"pkg/mcpserver → pkg/hostprogram [pkg/mcpserver]",
			"pkg/mcpserver → pkg/grpcclient [pkg/mcpserver]",
			"pkg/mcpserver → go.uber.org/goleak [pkg/mcpserver]",
		},
	},
	{
		name: "pkg/playground: the page server imports wire types, the runtime or the host",
		edges: []edge{
			own("pkg/playground", "gen/playground"),
			stdlib("pkg/playground", "net/http"),
			own("pkg/playground", "gen/go/pb/codex/code_mode/v1"),
			own("pkg/playground", "pkg/jsruntime"),
			own("pkg/playground", "pkg/hostprogram"),
			own("pkg/hostprogram", "pkg/playground"),
		},
		want: []string{
			"pkg/playground → gen/go/pb/codex/code_mode/v1 [pkg/playground]",
			"pkg/playground → pkg/jsruntime [pkg/playground]",
			"pkg/playground → pkg/hostprogram [pkg/playground]",
		},
	},
	{
		name: "services/...: a service's main does more than run its program",
		edges: []edge{
			own("services/codemode-host", "pkg/hostprogram"),
			inTest(own("services/codemode-host", "pkg/clientv1")),
			own("services/codemode-host", "pkg/jsruntime"),
			own("services/codemode-host", "tools/codemode"),
			ext("services/codemode-host", "github.com/coder/websocket", websocket),
		},
		want: []string{
			"services/codemode-host → pkg/jsruntime [services/...]",
			"services/codemode-host → tools/codemode [services/...]",
			"services/codemode-host → github.com/coder/websocket [services/...]",
		},
	},
	{
		name: "pkg/serdejson: the runtime below gen/ imports generated code or the domain",
		edges: []edge{
			stdlib("pkg/serdejson", "strconv"),
			own("pkg/serdejson", "gen/go/wirev1"),
			own("pkg/serdejson", "pkg/codemode"),
		},
		want: []string{
			"pkg/serdejson → gen/go/wirev1 [pkg/serdejson]",
			"pkg/serdejson → pkg/codemode [pkg/serdejson]",
		},
	},
	{
		name: "pkg/internal/zstd: the compressor imports the module",
		edges: []edge{
			ext("pkg/internal/zstd", "github.com/klauspost/compress/zstd", zstd),
			ext("pkg/internal/zstd", "connectrpc.com/connect/v2", connect),
			own("pkg/internal/zstd", "pkg/grpcconv"),
		},
		want: []string{"pkg/internal/zstd → pkg/grpcconv [pkg/internal/zstd]"},
	},
	{
		name: "pkg/internal/...: a shared helper imports an adapter, or a library outside tests",
		edges: []edge{
			stdlib("pkg/internal/stdio", "net"),
			inTest(ext("pkg/internal/stdio", "go.uber.org/goleak", goleak)),
			own("pkg/internal/stdio", "pkg/hostv1"),
			ext("pkg/internal/stdio", "go.uber.org/goleak", goleak),
		},
		want: []string{
			"pkg/internal/stdio → pkg/hostv1 [pkg/internal/...]",
			"pkg/internal/stdio → go.uber.org/goleak [pkg/internal/...]",
		},
	},
	{
		name: "pkg/...: a library imports a binary, a service, generated code",
		edges: []edge{
			stdlib("pkg/frame", "encoding/binary"),
			own("pkg/frame", "tools/codemode"),
			own("pkg/frame", "services/host"),
			own("pkg/newlib", "gen/go/wirev1"),
		},
		want: []string{
			"pkg/frame → tools/codemode [pkg/...]",
			"pkg/frame → services/host [pkg/...]",
			"pkg/newlib → gen/go/wirev1 [pkg/...]",
		},
	},
	{
		name: "gen/...: generated code imports hand-written code",
		edges: []edge{
			own("gen/go/pb/codex/code_mode/v1/code_modev1connect", "gen/go/pb/codex/code_mode/v1"),
			own("gen/go/wirev1", "pkg/serdejson"),
			own("gen/go/wirev1", "pkg/codemode"),
			own("gen/go/wirev1", "generators/wiregen"),
		},
		want: []string{
			"gen/go/wirev1 → pkg/codemode [gen/...]",
			"gen/go/wirev1 → generators/wiregen [gen/...]",
		},
	},
	{
		name: "generators/...: a generator imports its own output, or pkg",
		edges: []edge{
			own("generators/grpcfixtures", "gen/go/pb/codex/code_mode/v1"),
			own("generators/wiregen", "pkg/serdejson"),
			inTest(own("generators/tsgen", "gen/go/wirev1")),
			inTest(own("generators/tsgen", "pkg/testenv")),
			own("generators/wiregen", "gen/go/wirev1"),
			own("generators/tsgen", "pkg/exectool"),
			own("generators/tsgen", "pkg/testenv"),
		},
		want: []string{
			"generators/wiregen → gen/go/wirev1 [generators/...]",
			"generators/tsgen → pkg/exectool [generators/...]",
			"generators/tsgen → pkg/testenv [generators/...]",
		},
	},
	{
		name: "compat/...: a gate loads generated code outside tests, or imports a binary",
		edges: []edge{
			inTest(own("compat/buf", "gen/go/pb/codex/code_mode/v1")),
			own("compat/buf", "gen/go/pb/codex/code_mode/v1"),
			inTest(own("compat/wirev1", "tools/codemode")),
		},
		want: []string{
			"compat/buf → gen/go/pb/codex/code_mode/v1 [compat/...]",
			"compat/wirev1 → tools/codemode (test) [compat/...]",
		},
	},
	{
		name: "compat/tshost: the SDK's test host serves grpchost on jsruntime, and nothing else of the module",
		edges: []edge{
			own("compat/tshost", "pkg/grpchost"),
			own("compat/tshost", "pkg/jsruntime"),
			own("compat/tshost", "gen/go/pb/codex/code_mode/v1"),
			own("compat/tshost", "pkg/grpcclient"),
			ext("compat/tshost", "connectrpc.com/connect/v2", connect),
		},
		want: []string{
			"compat/tshost → gen/go/pb/codex/code_mode/v1 [compat/tshost]",
			"compat/tshost → pkg/grpcclient [compat/tshost]",
			"compat/tshost → connectrpc.com/connect/v2 [compat/tshost]",
		},
	},
	{
		name: "tools/...: a binary imports a generator, a gate, a runtime library directly",
		edges: []edge{
			own("tools/codemode", "pkg/jsruntime"),
			own("tools/codemode", "gen/go/wirev1"),
			own("tools/codemode", "generators/wiregen"),
			own("tools/codemode", "compat/buf"),
			ext("tools/codemode", "github.com/fastschema/qjs", qjs),
		},
		want: []string{
			"tools/codemode → generators/wiregen [tools/...]",
			"tools/codemode → compat/buf [tools/...]",
			"tools/codemode → github.com/fastschema/qjs [tools/...]",
		},
	},
}

// TestPlantedViolations feeds each fabricated graph to the same check TestLayering runs.
func TestPlantedViolations(t *testing.T) {
	for _, c := range planted {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, v := range violations(layers, graph{edges: c.edges}) {
				got = append(got, v.key())
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(c.want))
			if !slices.Equal(got, want) {
				t.Errorf("violations:\n  got  %q\n  want %q", got, want)
			}
		})
	}
}

// TestEveryRuleHasAPlantedViolation keeps the planted table complete: a rule added to layers
// without a case that proves it can fail fails here.
func TestEveryRuleHasAPlantedViolation(t *testing.T) {
	for _, l := range layers {
		proven := slices.ContainsFunc(planted, func(c plantedCase) bool {
			return slices.ContainsFunc(c.want, func(k string) bool { return strings.HasSuffix(k, "["+l.pkgs+"]") })
		})
		if !proven {
			t.Errorf("rule %q has no planted violation in pkg/layering_planted_test.go: add a case that it rejects", l.pkgs)
		}
	}
}

// TestViolationMessage pins what a failure says: the package, the import and its module, the
// rule, what it allows and why.
func TestViolationMessage(t *testing.T) {
	vs := violations(layers, graph{edges: []edge{inTest(ext("pkg/codemode", "google.golang.org/protobuf/proto", protobuf))}})
	if len(vs) != 1 {
		t.Fatalf("got %d violations, want 1", len(vs))
	}
	want := `pkg/codemode (in _test.go files) imports google.golang.org/protobuf/proto (module google.golang.org/protobuf), which rule "pkg/codemode" does not allow (allowed: std): the domain contract`
	if got := vs[0].String(); !strings.HasPrefix(got, want) {
		t.Errorf("message:\n  got  %s\n  want %s…", got, want)
	}
}

// TestTableProblems proves the checks on the table itself: a rule that governs nothing, a
// package no rule governs, an allow entry that names nothing, a rule listed twice.
func TestTableProblems(t *testing.T) {
	pkgs := []string{"pkg/frame", "pkg/codemode"}
	modules := []string{qjs}
	cases := []struct {
		name   string
		layers []layer
		pkgs   []string
		want   []string // one problem must contain each
	}{
		{
			name:   "a clean table",
			layers: []layer{{pkgs: "pkg/...", allow: []string{std, "pkg/codemode", qjs}}},
			pkgs:   pkgs,
		},
		{
			name:   "a rule that matches no package",
			layers: []layer{{pkgs: "pkg/..."}, {pkgs: "services/..."}},
			pkgs:   pkgs,
			want:   []string{`rule "services/..." governs no package`},
		},
		{
			name:   "a rule shadowed by more specific ones",
			layers: []layer{{pkgs: "pkg/frame/..."}, {pkgs: "pkg/frame"}, {pkgs: "pkg/..."}},
			pkgs:   pkgs,
			want:   []string{`rule "pkg/frame/..." governs no package`},
		},
		{
			name:   "a package no rule governs",
			layers: []layer{{pkgs: "pkg/..."}},
			pkgs:   append(slices.Clone(pkgs), "services/host"),
			want:   []string{"no layering rule governs package services/host"},
		},
		{
			name:   "allow entries that name nothing",
			layers: []layer{{pkgs: "pkg/...", allow: []string{"pkg/nosuch/...", "example.com/nosuch"}, allowInTests: []string{"pkg/frames"}}},
			pkgs:   pkgs,
			want: []string{
				`rule "pkg/..." allows "pkg/nosuch/...", which names no package`,
				`rule "pkg/..." allows "pkg/frames", which names no package`,
				`rule "pkg/..." allows module "example.com/nosuch", which go.mod does not require`,
			},
		},
		{
			name:   "a rule listed twice",
			layers: []layer{{pkgs: "pkg/..."}, {pkgs: "pkg/..."}},
			pkgs:   pkgs,
			want:   []string{`rule "pkg/..." appears twice`},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := tableProblems(c.layers, c.pkgs, modules)
			if len(got) != len(c.want) {
				t.Errorf("got %d problems, want %d:\n  %s", len(got), len(c.want), strings.Join(got, "\n  "))
			}
			for _, w := range c.want {
				if !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, w) }) {
					t.Errorf("no problem says %q; got:\n  %s", w, strings.Join(got, "\n  "))
				}
			}
		})
	}
}
