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
		name:  "issue 8: modeltool imports a generator",
		edges: []edge{own("pkg/modeltool", "pkg/codemode"), own("pkg/modeltool", "generators/wiregen")},
		want:  []string{"pkg/modeltool → generators/wiregen [pkg/modeltool/...]"},
	},
	{
		name:  "issue 8: the conformance suite imports modeltool",
		edges: []edge{own("pkg/codemode/codemodetest", "pkg/codemode"), own("pkg/codemode/codemodetest", "pkg/modeltool")},
		want:  []string{"pkg/codemode/codemodetest → pkg/modeltool [pkg/codemode/codemodetest]"},
	},

	// One or more per rule.
	{
		name: "pkg/v1/v1convert: the conversions import a transport",
		edges: []edge{
			own("pkg/v1/v1convert", "gen/go/wirev1"),
			own("pkg/v1/v1convert", "pkg/codemode"),
			own("pkg/v1/v1convert", "pkg/v1/v1transport"),
		},
		want: []string{"pkg/v1/v1convert → pkg/v1/v1transport [pkg/v1/v1convert]"},
	},
	{
		name: "pkg/v1/v1transport: a transport imports the domain contract",
		edges: []edge{
			own("pkg/v1/v1transport", "pkg/v1/v1frame"),
			ext("pkg/v1/v1transport", "github.com/coder/websocket", websocket),
			own("pkg/v1/v1transport", "pkg/codemode"),
		},
		want: []string{"pkg/v1/v1transport → pkg/codemode [pkg/v1/v1transport]"},
	},
	{
		name: "pkg/v1/v1client: the client imports the host driver outside tests",
		edges: []edge{
			own("pkg/v1/v1client", "pkg/v1/v1transport"),
			inTest(own("pkg/v1/v1client", "pkg/v1/v1host")),
			own("pkg/v1/v1client", "pkg/v1/v1host"),
		},
		want: []string{"pkg/v1/v1client → pkg/v1/v1host [pkg/v1/v1client]"},
	},
	{
		name: "pkg/v1/v1host: the host imports the runtime outside tests",
		edges: []edge{
			own("pkg/v1/v1host", "pkg/v1/v1convert"),
			inTest(own("pkg/v1/v1host", "pkg/jsruntime")),
			own("pkg/v1/v1host", "pkg/jsruntime"),
		},
		want: []string{
			"pkg/v1/v1host → pkg/jsruntime [pkg/v1/...]",
			"pkg/v1/v1host → pkg/jsruntime [pkg/v1/v1host]",
		},
	},
	{
		name:  "pkg/codemode: the domain imports another package of the module",
		edges: []edge{inTest(own("pkg/codemode", "pkg/v1/v1frame"))},
		want:  []string{"pkg/codemode → pkg/v1/v1frame (test) [pkg/codemode]"},
	},
	{
		name:  "pkg/codemode/codemodetest: the conformance suite imports a runtime engine",
		edges: []edge{ext("pkg/codemode/codemodetest", "github.com/fastschema/qjs", qjs)},
		want:  []string{"pkg/codemode/codemodetest → github.com/fastschema/qjs [pkg/codemode/codemodetest]"},
	},
	{
		name:  "pkg/modeltool: a subpackage imports generated wire types",
		edges: []edge{own("pkg/modeltool/render", "pkg/serdejson"), own("pkg/modeltool/render", "gen/go/wirev1")},
		want:  []string{"pkg/modeltool/render → gen/go/wirev1 [pkg/modeltool/...]"},
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
			"pkg/jsruntime → connectrpc.com/connect/v2 [pkg/jsruntime/...]",
			"pkg/jsruntime → connectrpc.com/connect/v2 [pkg/jsruntime]",
			"pkg/jsruntime → gen/go/wirev1 [pkg/jsruntime/...]",
			"pkg/jsruntime → gen/go/wirev1 [pkg/jsruntime]",
			"pkg/jsruntime → github.com/tetratelabs/wazero/experimental [pkg/jsruntime]",
			"pkg/jsruntime → pkg/codemode/codemodetest [pkg/jsruntime/...]",
			"pkg/jsruntime → pkg/codemode/codemodetest [pkg/jsruntime]",
		},
	},
	{
		name: "pkg/toolsources/toolprovider: the tool provider imports a runtime, a transport's generated types, a binary",
		edges: []edge{
			own("pkg/toolsources/toolprovider", "schemas/manifest"),
			ext("pkg/toolsources/toolprovider", "github.com/santhosh-tekuri/jsonschema/v6", jsonschema),
			own("pkg/toolsources/toolprovider", "pkg/jsruntime"),
			own("pkg/toolsources/toolprovider", "gen/go/wirev1"),
			own("pkg/toolsources/toolprovider", "services/codemode"),
		},
		want: []string{
			"pkg/toolsources/toolprovider → gen/go/wirev1 [pkg/toolsources/...]",
			"pkg/toolsources/toolprovider → gen/go/wirev1 [pkg/toolsources/toolprovider]",
			"pkg/toolsources/toolprovider → pkg/jsruntime [pkg/toolsources/...]",
			"pkg/toolsources/toolprovider → pkg/jsruntime [pkg/toolsources/toolprovider]",
			"pkg/toolsources/toolprovider → services/codemode [pkg/toolsources/...]",
			"pkg/toolsources/toolprovider → services/codemode [pkg/toolsources/toolprovider]",
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
			own("examples/tools/read_file", "pkg/toolsources/toolprovider"),
		},
		want: []string{"examples/tools/read_file → pkg/toolsources/toolprovider [examples/...]"},
	},
	{
		name: "pkg/toolsources/mcptools: the MCP tool source imports a runtime outside its tests, a host adapter, another MCP library",
		edges: []edge{
			own("pkg/toolsources/mcptools", "pkg/toolsources/toolprovider"),
			ext("pkg/toolsources/mcptools", "github.com/modelcontextprotocol/go-sdk/mcp", mcpSDK),
			inTest(own("pkg/toolsources/mcptools", "pkg/jsruntime")),
			own("pkg/toolsources/mcptools", "pkg/jsruntime"),
			own("pkg/toolsources/mcptools", "pkg/v1/v1host"),
			ext("pkg/toolsources/mcptools", "github.com/coder/websocket", websocket),
		},
		want: []string{
			"pkg/toolsources/mcptools → github.com/coder/websocket [pkg/toolsources/mcptools]",
			"pkg/toolsources/mcptools → pkg/jsruntime [pkg/toolsources/...]",
			"pkg/toolsources/mcptools → pkg/jsruntime [pkg/toolsources/mcptools]",
			"pkg/toolsources/mcptools → pkg/v1/v1host [pkg/toolsources/...]",
			"pkg/toolsources/mcptools → pkg/v1/v1host [pkg/toolsources/mcptools]",
		},
	},
	{
		name: "examples/tools/mcp_notes: the example MCP server imports the module",
		edges: []edge{
			ext("examples/tools/mcp_notes", "github.com/modelcontextprotocol/go-sdk/mcp", mcpSDK),
			own("examples/tools/mcp_notes", "pkg/toolsources/mcptools"),
		},
		want: []string{"examples/tools/mcp_notes → pkg/toolsources/mcptools [examples/tools/mcp_notes]"},
	},
	{
		name: "pkg/toolsources: the manifest opener imports a runtime, a host adapter or a wire type",
		edges: []edge{
			own("pkg/toolsources", "pkg/toolsources/mcptools"),
			own("pkg/toolsources", "pkg/toolsources/exectools"),
			own("pkg/toolsources", "pkg/jsruntime"),
			own("pkg/toolsources", "pkg/grpc/grpchost"),
			own("pkg/toolsources", "gen/go/execserverwire"),
		},
		want: []string{
			"pkg/toolsources → gen/go/execserverwire [pkg/toolsources]",
			"pkg/toolsources → pkg/grpc/grpchost [pkg/toolsources/...]",
			"pkg/toolsources → pkg/grpc/grpchost [pkg/toolsources]",
			"pkg/toolsources → pkg/jsruntime [pkg/toolsources/...]",
			"pkg/toolsources → pkg/jsruntime [pkg/toolsources]",
		},
	},
	{
		name: "pkg/execserver/execrpc: the exec-server codec imports the V1 wire or a method's server",
		edges: []edge{
			own("pkg/execserver/execrpc", "gen/go/execserverwire"),
			own("pkg/execserver/execrpc", "gen/go/wirev1"),
			own("pkg/execserver/execrpc", "pkg/execserver/execserver"),
		},
		want: []string{
			"pkg/execserver/execrpc → gen/go/wirev1 [pkg/execserver/...]",
			"pkg/execserver/execrpc → gen/go/wirev1 [pkg/execserver/execrpc]",
			"pkg/execserver/execrpc → pkg/execserver/execserver [pkg/execserver/execrpc]",
		},
	},
	{
		name: "pkg/execserver/execserver: the exec-server imports the domain contract",
		edges: []edge{
			own("pkg/execserver/execserver", "pkg/execserver/execrpc"),
			own("pkg/execserver/execserver", "pkg/codemode"),
		},
		want: []string{
			"pkg/execserver/execserver → pkg/codemode [pkg/execserver/...]",
			"pkg/execserver/execserver → pkg/codemode [pkg/execserver/execserver]",
		},
	},
	{
		name: "pkg/toolsources/exectools: the client imports the server or the runtime outside tests",
		edges: []edge{
			own("pkg/toolsources/exectools", "pkg/execserver/execrpc"),
			inTest(own("pkg/toolsources/exectools", "pkg/jsruntime")),
			own("pkg/toolsources/exectools", "pkg/execserver/execserver"),
		},
		want: []string{
			"pkg/toolsources/exectools → pkg/execserver/execserver [pkg/toolsources/...]",
			"pkg/toolsources/exectools → pkg/execserver/execserver [pkg/toolsources/exectools]",
		},
	},
	{
		name: "pkg/internal/recent: the leaf imports a protocol",
		edges: []edge{
			stdlib("pkg/internal/recent", "sync"),
			own("pkg/internal/recent", "gen/go/wirev1"),
		},
		want: []string{"pkg/internal/recent → gen/go/wirev1 [pkg/internal/recent]"},
	},
	{
		name: "pkg/grpc/grpcconv: the conversion package imports a transport, a runtime or the V1 wire",
		edges: []edge{
			own("pkg/grpc/grpcconv", "gen/go/pb/codex/code_mode/v1"),
			own("pkg/grpc/grpcconv", "pkg/serdejson"),
			ext("pkg/grpc/grpcconv", "connectrpc.com/connect/v2", connect),
			own("pkg/grpc/grpcconv", "pkg/jsruntime"),
			own("pkg/grpc/grpcconv", "gen/go/wirev1"),
		},
		want: []string{
			"pkg/grpc/grpcconv → connectrpc.com/connect/v2 [pkg/grpc/grpcconv]",
			"pkg/grpc/grpcconv → gen/go/wirev1 [pkg/grpc/...]",
			"pkg/grpc/grpcconv → gen/go/wirev1 [pkg/grpc/grpcconv]",
			"pkg/grpc/grpcconv → pkg/jsruntime [pkg/grpc/...]",
			"pkg/grpc/grpcconv → pkg/jsruntime [pkg/grpc/grpcconv]",
		},
	},
	{
		name: "pkg/grpc/grpchost: the host names a runtime, the V1 wire or the client outside tests",
		edges: []edge{
			own("pkg/grpc/grpchost", "gen/go/pb/codex/code_mode/v1/code_modev1connect"),
			ext("pkg/grpc/grpchost", "connectrpc.com/connect/v2", connect),
			inTest(own("pkg/grpc/grpchost", "pkg/jsruntime")),
			own("pkg/grpc/grpchost", "pkg/jsruntime"),
			own("pkg/grpc/grpchost", "gen/go/wirev1"),
			own("pkg/grpc/grpchost", "pkg/grpc/grpcclient"),
		},
		want: []string{
			"pkg/grpc/grpchost → gen/go/wirev1 [pkg/grpc/...]",
			"pkg/grpc/grpchost → gen/go/wirev1 [pkg/grpc/grpchost]",
			"pkg/grpc/grpchost → pkg/grpc/grpcclient [pkg/grpc/grpchost]",
			"pkg/grpc/grpchost → pkg/jsruntime [pkg/grpc/...]",
			"pkg/grpc/grpchost → pkg/jsruntime [pkg/grpc/grpchost]",
		},
	},
	{
		name: "pkg/grpc/grpcclient: the client imports the host or a runtime outside tests",
		edges: []edge{
			own("pkg/grpc/grpcclient", "pkg/grpc/grpcconv"),
			inTest(own("pkg/grpc/grpcclient", "pkg/grpc/grpchost")),
			own("pkg/grpc/grpcclient", "pkg/grpc/grpchost"),
			own("pkg/grpc/grpcclient", "pkg/jsruntime"),
			own("pkg/grpc/grpcclient", "gen/go/wirev1"),
		},
		want: []string{
			"pkg/grpc/grpcclient → gen/go/wirev1 [pkg/grpc/...]",
			"pkg/grpc/grpcclient → gen/go/wirev1 [pkg/grpc/grpcclient]",
			"pkg/grpc/grpcclient → pkg/grpc/grpchost [pkg/grpc/grpcclient]",
			"pkg/grpc/grpcclient → pkg/jsruntime [pkg/grpc/...]",
			"pkg/grpc/grpcclient → pkg/jsruntime [pkg/grpc/grpcclient]",
		},
	},
	{
		name: "pkg/hostprogram: the host program imports generated wire types, a client, a service",
		edges: []edge{
			own("pkg/hostprogram", "pkg/v1/v1host"),
			ext("pkg/hostprogram", "github.com/oklog/run", oklogRun),
			inTest(own("pkg/hostprogram", "pkg/testenv")),
			own("pkg/hostprogram", "gen/go/wirev1"),
			own("pkg/hostprogram", "pkg/v1/v1client"),
			own("pkg/hostprogram", "services/codemode-host"),
		},
		want: []string{
			"pkg/hostprogram → gen/go/wirev1 [pkg/hostprogram]",
			"pkg/hostprogram → pkg/v1/v1client [pkg/hostprogram]",
			"pkg/hostprogram → services/codemode-host [pkg/hostprogram]",
		},
	},
	{
		name: "pkg/telemetry/metrics: the metrics decorator imports a transport, a tool source or a runtime outside its tests",
		edges: []edge{
			own("pkg/telemetry/metrics", "pkg/codemode"),
			ext("pkg/telemetry/metrics", "github.com/prometheus/client_golang/prometheus", prometheus),
			inTest(own("pkg/telemetry/metrics", "pkg/jsruntime")),
			inTest(ext("pkg/telemetry/metrics", "github.com/prometheus/common/expfmt", promCommon)),
			own("pkg/telemetry/metrics", "pkg/grpc/grpchost"),
			own("pkg/telemetry/metrics", "pkg/toolsources/toolprovider"),
			own("pkg/telemetry/metrics", "pkg/jsruntime"),
		},
		want: []string{
			"pkg/telemetry/metrics → pkg/grpc/grpchost [pkg/telemetry/metrics]",
			"pkg/telemetry/metrics → pkg/toolsources/toolprovider [pkg/telemetry/metrics]",
			"pkg/telemetry/metrics → pkg/jsruntime [pkg/telemetry/metrics]",
		},
	},
	{
		name: "pkg/telemetry/tracing: the tracing decorator imports a transport, wire types or a runtime outside its tests",
		edges: []edge{
			own("pkg/telemetry/tracing", "pkg/codemode"),
			ext("pkg/telemetry/tracing", "go.opentelemetry.io/otel/sdk/trace", otelSDK),
			inTest(own("pkg/telemetry/tracing", "pkg/jsruntime")),
			own("pkg/telemetry/tracing", "pkg/grpc/grpchost"),
			own("pkg/telemetry/tracing", "gen/go/wirev1"),
			own("pkg/telemetry/tracing", "pkg/jsruntime"),
		},
		want: []string{
			"pkg/telemetry/tracing → pkg/grpc/grpchost [pkg/telemetry/tracing]",
			"pkg/telemetry/tracing → gen/go/wirev1 [pkg/telemetry/tracing]",
			"pkg/telemetry/tracing → pkg/jsruntime [pkg/telemetry/tracing]",
		},
	},
	{
		name: "pkg/mcpserver: the MCP server imports wire types, a host adapter or a client; the goleak outside tests",
		edges: []edge{
			own("pkg/mcpserver", "pkg/modeltool"),
			ext("pkg/mcpserver", "github.com/modelcontextprotocol/go-sdk/mcp", mcpSDK),
			inTest(ext("pkg/mcpserver", "go.uber.org/goleak", goleak)),
			own("pkg/mcpserver", "gen/go/wirev1"),
			own("pkg/mcpserver", "pkg/hostprogram"),
			own("pkg/mcpserver", "pkg/grpc/grpcclient"),
			ext("pkg/mcpserver", "go.uber.org/goleak", goleak),
		},
		want: []string{
			"pkg/mcpserver → gen/go/wirev1 [pkg/mcpserver]",
			"pkg/mcpserver → pkg/hostprogram [pkg/mcpserver]",
			"pkg/mcpserver → pkg/grpc/grpcclient [pkg/mcpserver]",
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
			inTest(own("services/codemode-host", "pkg/v1/v1client")),
			own("services/codemode-host", "pkg/jsruntime"),
			own("services/codemode-host", "services/codemode"),
			ext("services/codemode-host", "github.com/coder/websocket", websocket),
		},
		want: []string{
			"services/codemode-host → pkg/jsruntime [services/...]",
			"services/codemode-host → services/codemode [services/...]",
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
		name: "pkg/serdejson/serdeimpl: the codecs' runtime imports generated code, the domain, or the shared cases outside tests",
		edges: []edge{
			own("pkg/serdejson/serdeimpl", "pkg/serdejson"),
			inTest(own("pkg/serdejson/serdeimpl", "pkg/serdejson/internal/serdecases")),
			own("pkg/serdejson/serdeimpl", "pkg/serdejson/internal/serdecases"),
			own("pkg/serdejson/serdeimpl", "gen/go/wirev1"),
			own("pkg/serdejson/serdeimpl", "pkg/codemode"),
		},
		want: []string{
			"pkg/serdejson/serdeimpl → pkg/serdejson/internal/serdecases [pkg/serdejson/serdeimpl]",
			"pkg/serdejson/serdeimpl → gen/go/wirev1 [pkg/serdejson/serdeimpl]",
			"pkg/serdejson/serdeimpl → pkg/codemode [pkg/serdejson/serdeimpl]",
		},
	},
	{
		name: "pkg/internal/zstd: the compressor imports the module",
		edges: []edge{
			ext("pkg/internal/zstd", "github.com/klauspost/compress/zstd", zstd),
			ext("pkg/internal/zstd", "connectrpc.com/connect/v2", connect),
			own("pkg/internal/zstd", "pkg/grpc/grpcconv"),
		},
		want: []string{"pkg/internal/zstd → pkg/grpc/grpcconv [pkg/internal/zstd]"},
	},
	{
		name: "pkg/internal/procgroup: the process-tree helper imports the module",
		edges: []edge{
			ext("pkg/internal/procgroup", "golang.org/x/sys/windows", xsys),
			own("pkg/internal/procgroup", "pkg/internal/stdio"),
		},
		want: []string{"pkg/internal/procgroup → pkg/internal/stdio [pkg/internal/procgroup]"},
	},
	{
		name: "pkg/internal/...: a shared helper imports an adapter, or a library outside tests",
		edges: []edge{
			stdlib("pkg/internal/stdio", "net"),
			inTest(ext("pkg/internal/stdio", "go.uber.org/goleak", goleak)),
			own("pkg/internal/stdio", "pkg/v1/v1host"),
			ext("pkg/internal/stdio", "go.uber.org/goleak", goleak),
		},
		want: []string{
			"pkg/internal/stdio → pkg/v1/v1host [pkg/internal/...]",
			"pkg/internal/stdio → go.uber.org/goleak [pkg/internal/...]",
		},
	},
	{
		name: "pkg/...: a library imports a binary, a service, generated code",
		edges: []edge{
			stdlib("pkg/v1/v1frame", "encoding/binary"),
			own("pkg/v1/v1frame", "services/codemode"),
			own("pkg/v1/v1frame", "services/host"),
			own("pkg/newlib", "gen/go/wirev1"),
		},
		want: []string{
			"pkg/newlib → gen/go/wirev1 [pkg/...]",
			"pkg/v1/v1frame → services/codemode [pkg/...]",
			"pkg/v1/v1frame → services/codemode [pkg/v1/...]",
			"pkg/v1/v1frame → services/host [pkg/...]",
			"pkg/v1/v1frame → services/host [pkg/v1/...]",
		},
	},
	{
		name: "gen/...: generated code imports hand-written code",
		edges: []edge{
			own("gen/go/pb/codex/code_mode/v1/code_modev1connect", "gen/go/pb/codex/code_mode/v1"),
			own("gen/go/wirev1", "pkg/serdejson/serdeimpl"),
			own("gen/go/wirev1", "pkg/serdejson"),
			own("gen/go/wirev1", "pkg/codemode"),
			own("gen/go/wirev1", "generators/wiregen"),
		},
		want: []string{
			"gen/go/wirev1 → pkg/serdejson [gen/...]",
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
			own("generators/tsgen", "pkg/modeltool"),
			own("generators/tsgen", "pkg/testenv"),
		},
		want: []string{
			"generators/wiregen → gen/go/wirev1 [generators/...]",
			"generators/tsgen → pkg/modeltool [generators/...]",
			"generators/tsgen → pkg/testenv [generators/...]",
		},
	},
	{
		name: "compat/...: a gate loads generated code outside tests, or imports a binary",
		edges: []edge{
			inTest(own("compat/buf", "gen/go/pb/codex/code_mode/v1")),
			own("compat/buf", "gen/go/pb/codex/code_mode/v1"),
			inTest(own("compat/wirev1", "services/codemode")),
		},
		want: []string{
			"compat/buf → gen/go/pb/codex/code_mode/v1 [compat/...]",
			"compat/wirev1 → services/codemode (test) [compat/...]",
		},
	},
	{
		name: "compat/tshost: the SDK's test host serves grpchost on jsruntime, and nothing else of the module",
		edges: []edge{
			own("compat/tshost", "pkg/grpc/grpchost"),
			own("compat/tshost", "pkg/jsruntime"),
			own("compat/tshost", "gen/go/pb/codex/code_mode/v1"),
			own("compat/tshost", "pkg/grpc/grpcclient"),
			ext("compat/tshost", "connectrpc.com/connect/v2", connect),
		},
		want: []string{
			"compat/tshost → gen/go/pb/codex/code_mode/v1 [compat/tshost]",
			"compat/tshost → pkg/grpc/grpcclient [compat/tshost]",
			"compat/tshost → connectrpc.com/connect/v2 [compat/tshost]",
		},
	},
	{
		name: "services/codemode: the CLI imports a generator, a gate, a runtime library directly",
		edges: []edge{
			own("services/codemode", "pkg/jsruntime"),
			own("services/codemode", "gen/go/wirev1"),
			own("services/codemode", "generators/wiregen"),
			own("services/codemode", "compat/buf"),
			ext("services/codemode", "github.com/fastschema/qjs", qjs),
		},
		want: []string{
			"services/codemode → generators/wiregen [services/codemode]",
			"services/codemode → compat/buf [services/codemode]",
			"services/codemode → github.com/fastschema/qjs [services/codemode]",
		},
	},
	{
		name: "tools/...: a script's Go program imports a generator or a service",
		edges: []edge{
			stdlib("tools/structure", "go/ast"),
			own("tools/structure", "tools/bench/report"),
			own("tools/structure", "pkg/jsruntime"),
			own("tools/structure", "gen/go/wirev1"),
			own("tools/structure", "generators/wiregen"),
			own("tools/structure", "services/codemode"),
		},
		want: []string{
			"tools/structure → pkg/jsruntime [tools/...]",
			"tools/structure → gen/go/wirev1 [tools/...]",
			"tools/structure → generators/wiregen [tools/...]",
			"tools/structure → services/codemode [tools/...]",
		},
	},

	{
		name: "pkg/jsruntime's layers: the cell layer touches QuickJS, the VM learns of cells",
		edges: []edge{
			own("pkg/jsruntime", "pkg/jsruntime/internal/engine"),
			ext("pkg/jsruntime", "github.com/fastschema/qjs", qjs),
			own("pkg/jsruntime", "gen/go/qjswasm"),
			own("pkg/jsruntime/internal/engine", "pkg/codemode"),
			own("pkg/jsruntime/internal/engine", "pkg/jsruntime"),
			own("pkg/jsruntime/internal/engine", "pkg/jsruntime/internal/jssource"),
			ext("pkg/jsruntime/internal/jssource", "github.com/tetratelabs/wazero/api", wazero),
		},
		want: []string{
			"pkg/jsruntime → github.com/fastschema/qjs [pkg/jsruntime]",
			"pkg/jsruntime → gen/go/qjswasm [pkg/jsruntime]",
			"pkg/jsruntime/internal/engine → pkg/codemode [pkg/jsruntime/internal/engine]",
			"pkg/jsruntime/internal/engine → pkg/jsruntime [pkg/jsruntime/internal/engine]",
			"pkg/jsruntime/internal/engine → pkg/jsruntime/internal/jssource [pkg/jsruntime/internal/engine]",
			"pkg/jsruntime/internal/jssource → github.com/tetratelabs/wazero/api [pkg/jsruntime/internal/jssource]",
		},
	},
	// The families: a package under a family directory that its own rule would let through (here
	// one that has no rule of its own yet, so the catch-all pkg/... governs it, or one whose rule
	// a careless edit widened) is still held to the family's ceiling.
	{
		name: "pkg/v1/...: a V1 package reaches the gRPC family, the exec-server or a runtime",
		edges: []edge{
			own("pkg/v1/v1host", "pkg/v1/v1convert"),
			own("pkg/v1/v1host", "pkg/grpc/grpcconv"),
			own("pkg/v1/v1new", "pkg/internal/recent"),
			own("pkg/v1/v1new", "pkg/execserver/execrpc"),
			own("pkg/v1/v1new", "gen/go/pb/codex/code_mode/v1"),
			inTest(own("pkg/v1/v1new", "pkg/jsruntime")),
		},
		want: []string{
			"pkg/v1/v1host → pkg/grpc/grpcconv [pkg/v1/v1host]",
			"pkg/v1/v1host → pkg/grpc/grpcconv [pkg/v1/...]",
			"pkg/v1/v1new → pkg/internal/recent [pkg/...]",
			"pkg/v1/v1new → pkg/execserver/execrpc [pkg/...]",
			"pkg/v1/v1new → pkg/execserver/execrpc [pkg/v1/...]",
			"pkg/v1/v1new → gen/go/pb/codex/code_mode/v1 [pkg/...]",
			"pkg/v1/v1new → gen/go/pb/codex/code_mode/v1 [pkg/v1/...]",
			"pkg/v1/v1new → pkg/jsruntime (test) [pkg/...]",
		},
	},
	{
		name: "pkg/grpc/...: a gRPC package reaches the V1 family or wire, or the tool sources",
		edges: []edge{
			own("pkg/grpc/grpcnew", "pkg/grpc/grpcconv"),
			own("pkg/grpc/grpcnew", "pkg/v1/v1frame"),
			own("pkg/grpc/grpcnew", "gen/go/wirev1"),
			own("pkg/grpc/grpcnew", "pkg/toolsources/toolprovider"),
		},
		want: []string{
			"pkg/grpc/grpcnew → pkg/grpc/grpcconv [pkg/...]",
			"pkg/grpc/grpcnew → pkg/v1/v1frame [pkg/...]",
			"pkg/grpc/grpcnew → pkg/v1/v1frame [pkg/grpc/...]",
			"pkg/grpc/grpcnew → gen/go/wirev1 [pkg/...]",
			"pkg/grpc/grpcnew → gen/go/wirev1 [pkg/grpc/...]",
			"pkg/grpc/grpcnew → pkg/toolsources/toolprovider [pkg/...]",
			"pkg/grpc/grpcnew → pkg/toolsources/toolprovider [pkg/grpc/...]",
		},
	},
	{
		name: "pkg/execserver/...: an exec-server package learns of cells or of a Code Mode wire",
		edges: []edge{
			own("pkg/execserver/execserver", "pkg/execserver/execrpc"),
			own("pkg/execserver/execnew", "pkg/codemode"),
			own("pkg/execserver/execnew", "gen/go/wirev1"),
		},
		want: []string{
			"pkg/execserver/execnew → pkg/codemode [pkg/...]",
			"pkg/execserver/execnew → pkg/codemode [pkg/execserver/...]",
			"pkg/execserver/execnew → gen/go/wirev1 [pkg/...]",
			"pkg/execserver/execnew → gen/go/wirev1 [pkg/execserver/...]",
		},
	},
	{
		name: "pkg/toolsources/...: a tool source imports a host adapter, a Code Mode wire, a runtime",
		edges: []edge{
			own("pkg/toolsources/exectools", "pkg/execserver/execrpc"),
			own("pkg/toolsources/sourcenew", "pkg/v1/v1host"),
			own("pkg/toolsources/sourcenew", "gen/go/wirev1"),
			own("pkg/toolsources/sourcenew", "pkg/jsruntime"),
		},
		want: []string{
			"pkg/toolsources/sourcenew → pkg/v1/v1host [pkg/...]",
			"pkg/toolsources/sourcenew → pkg/v1/v1host [pkg/toolsources/...]",
			"pkg/toolsources/sourcenew → gen/go/wirev1 [pkg/...]",
			"pkg/toolsources/sourcenew → gen/go/wirev1 [pkg/toolsources/...]",
			"pkg/toolsources/sourcenew → pkg/jsruntime [pkg/...]",
			"pkg/toolsources/sourcenew → pkg/jsruntime [pkg/toolsources/...]",
		},
	},
}

// TestPlantedViolations feeds each fabricated graph to the same check TestLayering runs.
func TestPlantedViolations(t *testing.T) {
	for _, c := range planted {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, v := range allViolations(graph{edges: c.edges}) {
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
	for _, l := range slices.Concat(layers, families) {
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
	pkgs := []string{"pkg/v1/v1frame", "pkg/codemode"}
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
			layers: []layer{{pkgs: "pkg/v1/v1frame/..."}, {pkgs: "pkg/v1/v1frame"}, {pkgs: "pkg/..."}},
			pkgs:   pkgs,
			want:   []string{`rule "pkg/v1/v1frame/..." governs no package`},
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
