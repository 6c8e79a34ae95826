// Package pkg_test enforces the project's one-way layering,
//
//	schemas → generators → gen → pkg → services/tools,
//
// as an allow-list per layer, checked against the module's real import graph (go list, test
// imports included). The machinery lives in layering_check_test.go; the tests that plant a
// violation for every rule live in layering_planted_test.go.
package pkg_test

import "testing"

// std, as an allow entry, admits the whole standard library.
const std = "std"

// Third-party modules, by module path. An allow entry names a whole module: a package's
// dependencies are decided per library, not per package of it.
const (
	connect    = "connectrpc.com/connect/v2"
	protobuf   = "google.golang.org/protobuf"
	qjs        = "github.com/fastschema/qjs"
	wazero     = "github.com/tetratelabs/wazero"
	jsonschema = "github.com/santhosh-tekuri/jsonschema/v6"
	xtext      = "golang.org/x/text"
	tdewolff   = "github.com/tdewolff/parse/v2"
	uuid       = "github.com/google/uuid"
	websocket  = "github.com/coder/websocket"
	goleak     = "go.uber.org/goleak"
	oklogRun   = "github.com/oklog/run"
	// xnet is golang.org/x/net: its http2 package serves and dials HTTP/2 on a connection
	// that is not a socket (a spawned host's standard streams), which net/http cannot.
	xnet = "golang.org/x/net"
	// xsys is golang.org/x/sys: the exec-server reads a file's birth time (statx) and a pipe's
	// unread bytes (FIONREAD), which the standard library does not expose; pkg/internal/procgroup
	// kills a process tree with a Windows job object.
	xsys = "golang.org/x/sys"
	// xsync is golang.org/x/sync: its semaphore is the module's one counting semaphore (the
	// V1 and gRPC hosts' limits, only ever tried; the gRPC client's opening token;
	// docs/adr/0069-one-of-each-mechanism.md).
	xsync = "golang.org/x/sync"
	// zstd is klauspost/compress, whose zstd codec is the compression Codex's gRPC peers offer.
	zstd = "github.com/klauspost/compress"
	// mcpSDK is the official MCP Go SDK: pkg/toolsources/mcptools speaks MCP only through it.
	mcpSDK = "github.com/modelcontextprotocol/go-sdk"
	// grpcreflect serves gRPC server reflection on the host's TCP gRPC listener (pkg/hostprogram).
	grpcreflect = "connectrpc.com/grpcreflect/v2"
	// prometheus is client_golang, the metrics of pkg/telemetry/metrics; promCommon its exposition
	// format and promModel its data model, parsed by the tests that scrape a host.
	prometheus = "github.com/prometheus/client_golang"
	promCommon = "github.com/prometheus/common"
	promModel  = "github.com/prometheus/client_model"
	// otel, otelTrace and otelSDK are OpenTelemetry's API and SDK, the traces of
	// pkg/telemetry/tracing; otlpProto the OTLP messages it exports.
	otel      = "go.opentelemetry.io/otel"
	otelTrace = "go.opentelemetry.io/otel/trace"
	otelSDK   = "go.opentelemetry.io/otel/sdk"
	otlpProto = "go.opentelemetry.io/proto/otlp"
)

// layers is the architecture. A package is governed by the most specific rule whose pkgs pattern
// matches it (an exact path beats a subtree, a longer subtree beats a shorter one); every package
// must be governed by a rule, and every rule must govern a package.
//
// Allow entries are explicit: "std", a package or subtree of this module ("pkg/codemode",
// "gen/..."), or a third-party module path. There are no exemptions: to let a package import
// something new, add one line to its rule's allow list.
//
// Adapter packages are the only pkg packages whose rule allows gen/: the V1 ones (v1convert,
// v1transport, v1host, v1client), the exec-server ones (execrpc, execserver, exectools), the
// gRPC ones (grpcconv, grpchost, grpcclient), the one that
// serves the built browser playground (playground) and nothing else. A service's main is thin: its program lives in pkg (pkg/hostprogram), so that the CLI
// runs the same code.
var layers = []layer{
	{
		pkgs:  "pkg/codemode",
		allow: []string{std},
		why:   "the domain contract: every transport and runtime depends on it, so it depends on nothing of the module and on no library",
	},
	{
		pkgs:  "pkg/codemode/codemodetest",
		allow: []string{std, "pkg/codemode", "pkg/internal/broadcast"},
		why:   "the conformance suite exercises an implementation through the domain contract only (its recorder wakes waiters with the module's one broadcast signal)",
	},
	{
		pkgs:  "pkg/modeltool/...",
		allow: []string{std, "pkg/codemode", "pkg/modeltool/...", "pkg/serdejson"},
		why:   "what the model sees is derived from the domain contract (with serde_json's exact texts from pkg/serdejson), not from generators or wire types",
	},
	// gen/go/qjswasm is a build artifact, not a wire type: the transformed qjs.wasm the runtime
	// hands to qjs (generators/qjswasm).
	{
		pkgs:         "pkg/jsruntime",
		allow:        []string{std, "pkg/codemode", "pkg/modeltool/...", "pkg/jsruntime/internal/...", "pkg/serdejson"},
		allowInTests: []string{"pkg/codemode/codemodetest", "pkg/testenv"},
		why:          "the cell layer: cells, sessions, tool calls, timers and the bridge's messages over the VM of internal/engine; it never touches QuickJS, wazero or wasm itself",
	},
	{
		pkgs:  "pkg/jsruntime/internal/engine",
		allow: []string{std, "gen/go/qjswasm", "pkg/internal/broadcast", "pkg/serdejson", qjs, wazero},
		why:   "the VM: one QuickJS runtime in wasm, its memory, image and pool; it knows nothing of cells, sessions or the domain contract, only a prelude and a host that answers the bridge (its string quoting shares JSON's escapes with pkg/serdejson, which imports nothing of the module)",
	},
	{
		pkgs:         "pkg/jsruntime/internal/jssource",
		allow:        []string{std, tdewolff},
		allowInTests: []string{qjs},
		why:          "the source transform: JavaScript in, JavaScript out, with a parser and nothing of the runtime (its tests run what it prints on QuickJS)",
	},
	{
		pkgs:  "pkg/toolsources/toolprovider",
		allow: []string{std, "pkg/codemode", "pkg/internal/procgroup", "schemas/manifest", jsonschema, xtext},
		why:   "the tool provider serves the domain contract's Delegate from a manifest validated against schemas/manifest; it runs commands and knows no transport, runtime or generated code, so every program can use it",
	},
	{
		pkgs:         "pkg/toolsources/mcptools",
		allow:        []string{std, "pkg/codemode", "pkg/internal/procgroup", "pkg/toolsources/toolprovider", mcpSDK},
		allowInTests: []string{"pkg/jsruntime", "pkg/modeltool", goleak},
		why:          "MCP servers as tool sources: a manifest's mcp_servers (checked by pkg/toolsources/toolprovider) served as a ToolSet through the MCP SDK; like the tool provider it knows no transport or runtime (its tests run cells on jsruntime and render the exec description)",
	},
	{
		pkgs:  "pkg/internal/recent",
		allow: []string{std},
		why:   "the one bounded set of recent keys, shared by the V1 and gRPC drivers; a leaf that knows no protocol",
	},
	{
		pkgs:  "pkg/v1/v1convert",
		allow: []string{std, "pkg/codemode", "gen/go/wirev1"},
		why:   "the V1 adapter's conversions: the domain contract on one side, the generated V1 wire types on the other, nothing else",
	},
	{
		pkgs:         "pkg/v1/v1transport",
		allow:        []string{std, "gen/go/wirev1", "pkg/v1/v1frame", websocket},
		allowInTests: []string{"pkg/internal/membudget", goleak},
		why:          "V1 transports move frames and check lanes with the generated lane table; they know no domain type, no driver and no runtime (their tests charge the host's real budget)",
	},
	{
		pkgs:         "pkg/execserver/execrpc",
		allow:        []string{std, "gen/go/execserverwire", "pkg/serdejson", "pkg/serdejson/serdeimpl", websocket},
		allowInTests: []string{goleak},
		why:          "the exec-server's JSON-RPC-lite adapter: the generated envelope types and their runtime (the bounded decoder: serdejson's scan, then serdeimpl's document parser), the transports; it knows no method",
	},
	{
		pkgs:         "pkg/execserver/execserver",
		allow:        []string{std, "pkg/execserver/execrpc", "pkg/internal/broadcast", "pkg/internal/httpguard", "pkg/internal/procgroup", "gen/go/execserverwire", websocket, uuid, xsys},
		allowInTests: []string{"pkg/testenv", goleak},
		why:          "the exec-server adapter serves the generated method types over execrpc; it knows nothing of cells",
	},
	{
		pkgs:         "pkg/toolsources",
		allow:        []string{std, "pkg/toolsources/toolprovider", "pkg/toolsources/mcptools", "pkg/toolsources/exectools"},
		allowInTests: []string{"pkg/codemode", goleak},
		why:          "opens every tool source a manifest names (commands, MCP servers, an exec-server) for the programs; it composes the three tool-source packages and nothing else (its tests call the tools through the domain contract)",
	},
	{
		pkgs:         "pkg/toolsources/exectools",
		allow:        []string{std, "pkg/codemode", "pkg/execserver/execrpc", "pkg/internal/procgroup", "gen/go/execserverwire", websocket},
		allowInTests: []string{"pkg/jsruntime", "pkg/toolsources/toolprovider", "pkg/testenv", "pkg/testenv/fakemodel", goleak},
		why:          "an exec-server client as a ToolSet for cells: the domain contract on one side, the generated exec-server types on the other; its tests run cells on the in-process runtime against a real exec-server process",
	},
	{
		pkgs:         "pkg/v1/v1host",
		allow:        []string{std, "pkg/codemode", "pkg/v1/v1convert", "pkg/v1/v1transport", "pkg/v1/v1frame", "pkg/internal/recent", "pkg/internal/stdio", "pkg/internal/httpguard", "pkg/internal/nodelay", "pkg/internal/broadcast", "pkg/modeltool", "gen/go/wirev1", websocket, uuid, otel, otelTrace, xsync},
		allowInTests: []string{"pkg/jsruntime", "pkg/codemode/codemodetest", "pkg/serdejson", "pkg/internal/membudget", goleak},
		why:          "the V1 host driver serves any SessionProvider through the contract; it never imports a runtime (tests serve the in-process one, measure the frames' escaping with serde_json's and charge the host's real budget) nor the client driver",
	},
	{
		pkgs:         "pkg/v1/v1client",
		allow:        []string{std, "pkg/codemode", "pkg/v1/v1convert", "pkg/v1/v1transport", "pkg/v1/v1frame", "pkg/internal/recent", "pkg/internal/stdio", "gen/go/wirev1", websocket},
		allowInTests: []string{"pkg/v1/v1host", "pkg/jsruntime", "pkg/codemode/codemodetest", "pkg/testenv", goleak},
		why:          "the V1 client driver offers SessionProviders through the contract; only its tests run a host (a real process serving the in-process runtime)",
	},
	{
		pkgs:  "pkg/grpc/grpcconv",
		allow: []string{std, "pkg/codemode", "pkg/serdejson", "gen/go/pb/...", protobuf, uuid},
		why:   "an adapter package: the one place protobuf messages become domain values and back, with Codex's refusals (serde_json's texts from pkg/serdejson); it knows no transport, so host, client and CLI share it",
	},
	{
		pkgs:         "pkg/grpc/grpchost",
		allow:        []string{std, "pkg/codemode", "pkg/grpc/grpcconv", "pkg/internal/broadcast", "pkg/internal/nodelay", "pkg/internal/recent", "pkg/modeltool", "pkg/internal/zstd", "gen/go/pb/...", connect, protobuf, uuid, xnet, xsync, otel, otelTrace},
		allowInTests: []string{"pkg/jsruntime", "pkg/codemode/codemodetest", "pkg/grpc/grpcclient", "pkg/testenv", "pkg/internal/membudget", goleak},
		why:          "the gRPC host adapter serves any SessionProvider: it never names a runtime outside its tests, which run it on jsruntime, drive it with the Go client and charge the host's real budget",
	},
	{
		pkgs:         "pkg/grpc/grpcclient",
		allow:        []string{std, "pkg/codemode", "pkg/grpc/grpcconv", "pkg/internal/recent", "pkg/internal/broadcast", "pkg/serdejson", "pkg/internal/stdio", "pkg/internal/zstd", "gen/go/pb/...", connect, protobuf, uuid, xsync, otel, otelTrace},
		allowInTests: []string{"pkg/grpc/grpchost", "pkg/jsruntime", "pkg/codemode/codemodetest", "pkg/testenv", goleak},
		why:          "the gRPC client adapter speaks to any CodeModeHost: it never imports the host or a runtime outside its tests, which run the conformance suite against the host on jsruntime",
	},
	{
		pkgs:         "pkg/hostprogram",
		allow:        []string{std, "pkg/codemode", "pkg/v1/v1host", "pkg/grpc/grpchost", "pkg/grpc/grpcconv", "pkg/jsruntime", "pkg/toolsources/toolprovider", "pkg/toolsources", "pkg/playground", "pkg/internal/stdio", "pkg/internal/httpguard", "pkg/internal/buildinfo", "pkg/internal/membudget", "pkg/telemetry/metrics", "pkg/telemetry/tracing", otel, otelTrace, otelSDK, connect, grpcreflect, oklogRun, xnet},
		allowInTests: []string{"pkg/codemode/codemodetest", "pkg/testenv"},
		why:          "the host program composes the runtime, the tool provider and both host adapters; it never touches generated wire types (flags name a V1 generation through v1host) nor a client, and nothing in pkg imports it but the binaries above",
	},
	{
		pkgs:         "pkg/telemetry/metrics",
		allow:        []string{std, "pkg/codemode", prometheus},
		allowInTests: []string{"pkg/codemode/codemodetest", "pkg/jsruntime", promCommon},
		why:          "the metrics decorator sees only the domain contract (any provider, any transport) and exports through client_golang; its tests run the conformance suite through it on the in-process runtime",
	},
	{
		pkgs:         "pkg/telemetry/tracing",
		allow:        []string{std, "pkg/codemode", otel, otelTrace, otelSDK, otlpProto, protobuf, websocket},
		allowInTests: []string{"pkg/codemode/codemodetest", "pkg/jsruntime"},
		why:          "the tracing decorator sees only the domain contract (any provider, any transport) and exports OTLP JSON through OpenTelemetry's SDK; its tests run the conformance suite through it on the in-process runtime",
	},
	{
		pkgs:         "pkg/mcpserver",
		allow:        []string{std, "pkg/codemode", "pkg/modeltool", "pkg/jsruntime", "pkg/toolsources/toolprovider", "pkg/internal/recent", mcpSDK},
		allowInTests: []string{goleak},
		why:          "the MCP server adapter serves exec and wait over the official MCP SDK from the domain contract, the model-facing texts of modeltool and the runtime (its program creates the in-process provider); it knows no V1 or gRPC wire type, host adapter or client",
	},
	{
		pkgs:  "pkg/playground",
		allow: []string{std, "gen/playground", "pkg/codemode", "pkg/modeltool"},
		why:   "an adapter for one generated artifact: it serves the built page of gen/playground over HTTP, with the exec description that pkg/modeltool renders for the page's tools, and knows nothing of the host, the runtime or the wire types",
	},
	{
		pkgs:         "pkg/serdejson",
		allow:        []string{std},
		allowInTests: []string{"pkg/serdejson/internal/serdecases"},
		why:          "serde_json's JSON for Go sits below gen/ (its runtime builds on the tokenizer): importing anything of the module would make gen/ depend on the layers above it; its tests share serde_json's expectations with serdeimpl's",
	},
	{
		pkgs:         "pkg/serdejson/serdeimpl",
		allow:        []string{std, "pkg/serdejson"},
		allowInTests: []string{"pkg/serdejson/internal/serdecases"},
		why:          "the runtime of the generated codecs (as protoimpl is protoc-gen-go's) sits below gen/ on serdejson's tokenizer and nothing else of the module",
	},
	{
		pkgs:  "pkg/internal/zstd",
		allow: []string{std, connect, zstd},
		why:   "the zstd compressor the gRPC host and client share: connect's Compressor interface over klauspost/compress, and nothing of the module",
	},
	{
		pkgs:  "pkg/internal/procgroup",
		allow: []string{std, xsys},
		why:   "a command's process tree killed as one: a process group on Unix, a job object on Windows (through golang.org/x/sys/windows)",
	},
	{
		pkgs:         "pkg/internal/...",
		allow:        []string{std, "pkg/internal/procgroup"},
		allowInTests: []string{goleak},
		why:          "helpers shared by several adapters (the standard streams as a connection) need the standard library only",
	},
	{
		pkgs:  "pkg/...",
		allow: []string{std},
		why:   "a library package (pkg/v1/v1frame, pkg/testenv, and every new one until it gets its own rule) needs the standard library only; pkg never imports generated code, services or tools",
	},
	{
		pkgs:  "schemas/...",
		allow: []string{std},
		why:   "schemas/ is the truth, data at the bottom of the flow: its Go packages only embed documents for the code that checks files against them",
	},
	{
		pkgs:  "examples/...",
		allow: []string{std},
		why:   "the example tools are stand-alone programs a manifest runs, readable by anyone who knows Go: nothing of the module",
	},
	{
		pkgs:  "examples/tools/mcp_notes",
		allow: []string{std, mcpSDK},
		why:   "the example MCP server is a stand-alone program too, built on the official MCP Go SDK as any Go MCP server would be",
	},
	{
		pkgs:  "gen/...",
		allow: []string{std, "gen/...", protobuf, connect, "pkg/serdejson/serdeimpl"},
		why:   "generated code depends on its runtime libraries only (protobuf and connect for buf's output, the hand-written pkg/serdejson/serdeimpl for ours, as protoimpl is protoc-gen-go's), never on other hand-written code, not even serdejson's public API",
	},
	{
		pkgs:         "generators/...",
		allow:        []string{std, "generators/...", "gen/go/pb/...", "pkg/serdejson", "pkg/serdejson/serdeimpl", protobuf, uuid},
		allowInTests: []string{"gen/go/wirev1", "pkg/testenv", jsonschema, wazero},
		why:          "generators run before the rest of pkg: they may use the runtime their output imports (pkg/serdejson) and read buf's output (gen/go/pb, generated before them), but not their own output gen/go/wirev1 outside tests, or a broken gen/ could not be regenerated (the qjswasm transform's tests run the modules it derives on wazero)",
	},
	{
		pkgs:         "compat/...",
		allow:        []string{std, "compat/..."},
		allowInTests: []string{"gen/...", protobuf},
		why:          "the breaking-change gates compare schemas with baselines; only their tests load generated code, and none of them depends on pkg, generators, services or tools",
	},
	{
		pkgs:  "compat/tshost",
		allow: []string{std, "pkg/grpc/grpchost", "pkg/jsruntime"},
		why:   "the TypeScript SDK's test host: the gRPC host adapter on the in-process runtime, a program for tests only until the host service lands; it touches no generated code",
	},
	{
		pkgs:         "services/...",
		allow:        []string{std, "pkg/hostprogram"},
		allowInTests: []string{"pkg/...", "gen/go/pb/...", connect, protobuf, websocket, xnet, promCommon, promModel},
		why:          "a service is a thin main around its program in pkg (which the CLI shares); its tests drive the built binary as a client would: the Go clients, the generated gRPC types, raw WebSockets, a Prometheus scrape",
	},
	{
		pkgs:  "tools/...",
		allow: []string{std, "tools/..."},
		why:   "tools/ holds the gate and bench scripts; their Go helpers (the bench report, the structure figures) read files and text, so they need the standard library only: a program that needs the module's code is a service",
	},
	{
		pkgs:         "services/codemode",
		allow:        []string{std, "services/codemode", "pkg/...", "gen/...", protobuf},
		allowInTests: []string{mcpSDK},
		why:          "the CLI sits on top and may use any library or generated package, but not generators, compat gates or services: code two binaries share belongs in pkg; the tests of `codemode mcp` drive the built binary with the MCP SDK's client",
	},
}

// families are the subtree rules of pkg/: a family directory groups one protocol or one kind of
// part, and what the family as a whole may import is its ceiling. Every package under a family's
// directory must satisfy the family's rule and, on top, the rule of layers that governs it, which
// gives the direction inside the family (the frame codec below the transports, the host never
// importing the client). So a package added to a family is bounded before anyone writes its rule,
// and no rule of layers can quietly let a family reach another protocol.
var families = []layer{
	{
		pkgs:         "pkg/jsruntime/...",
		allow:        []string{std, "pkg/codemode", "pkg/modeltool/...", "pkg/jsruntime/...", "pkg/internal/broadcast", "pkg/serdejson", "gen/go/qjswasm", qjs, wazero, tdewolff},
		allowInTests: []string{"pkg/codemode/codemodetest", "pkg/testenv"},
		why:          "the QuickJS runtime implements the domain contract; it is no adapter, so it never touches generated wire types (serde_json's parser from pkg/serdejson tells what Codex's host would refuse to carry), and the conformance suite is linked into its tests only",
	},
	{
		pkgs:         "pkg/v1/...",
		allow:        []string{std, "pkg/codemode", "pkg/v1/...", "pkg/internal/...", "pkg/modeltool", "gen/go/wirev1", websocket, uuid, otel, otelTrace, xsync},
		allowInTests: []string{"pkg/jsruntime", "pkg/codemode/codemodetest", "pkg/testenv", "pkg/serdejson", goleak},
		why:          "the V1 family speaks the domain contract and the V1 wire: it never touches gRPC, the exec-server, the tool sources or a runtime (outside tests, which serve the in-process one)",
	},
	{
		pkgs:         "pkg/grpc/...",
		allow:        []string{std, "pkg/codemode", "pkg/grpc/...", "pkg/internal/...", "pkg/modeltool", "pkg/serdejson", "gen/go/pb/...", connect, protobuf, uuid, xnet, xsync, otel, otelTrace},
		allowInTests: []string{"pkg/jsruntime", "pkg/codemode/codemodetest", "pkg/testenv", goleak},
		why:          "the gRPC family speaks the domain contract and the protobuf messages: it never touches the V1 wire, the exec-server, the tool sources or a runtime (outside tests)",
	},
	{
		pkgs:         "pkg/execserver/...",
		allow:        []string{std, "pkg/execserver/...", "pkg/internal/broadcast", "pkg/internal/httpguard", "pkg/internal/procgroup", "pkg/serdejson", "pkg/serdejson/serdeimpl", "gen/go/execserverwire", websocket, uuid, xsys},
		allowInTests: []string{"pkg/testenv", goleak},
		why:          "the exec-server family is a process and file server (behind the module's one HTTP guard): it knows nothing of cells (not even the domain contract), of Code Mode's wires or of the tool sources that use it",
	},
	{
		pkgs:         "pkg/toolsources/...",
		allow:        []string{std, "pkg/codemode", "pkg/toolsources/...", "pkg/execserver/execrpc", "pkg/internal/procgroup", "gen/go/execserverwire", "schemas/manifest", jsonschema, xtext, mcpSDK, websocket},
		allowInTests: []string{"pkg/jsruntime", "pkg/modeltool", "pkg/testenv/...", goleak},
		why:          "the tool-source family serves the domain contract's Delegate from commands, MCP servers and an exec-server (through its client codec only): it never imports a host adapter, a Code Mode wire or a runtime outside tests",
	},
}

// allViolations is every edge of g that its governing rule or its family's rule does not allow.
func allViolations(g graph) []violation {
	return append(violations(layers, g), familyViolations(families, g)...)
}

// TestLayering checks the real import graph against layers and families: every import allowed,
// every package governed, every rule and allow entry naming something that exists.
func TestLayering(t *testing.T) {
	g := loadGraph(t)
	modules := loadRequiredModules(t)
	for _, problem := range tableProblems(layers, g.pkgs, modules) {
		t.Error(problem)
	}
	for _, problem := range familyProblems(families, g.pkgs, modules) {
		t.Error(problem)
	}
	for _, v := range allViolations(g) {
		t.Error(v)
	}
	for _, l := range layers {
		t.Logf("%s governs %v", l.pkgs, governed(layers, l, g.pkgs))
	}
}
