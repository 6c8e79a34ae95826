package grpcclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"strings"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
	"github.com/codemodehq/codemode/pkg/grpc/grpchost"
	"github.com/codemodehq/codemode/pkg/jsruntime"
)

// upperTool is the agent's side of a tool: the host calls it whenever a cell awaits
// tools.upper(…).
type upperTool struct{ codemode.BlockingNoop }

func (upperTool) InvokeTool(_ context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	var in struct{ Text string }
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return nil, err
	}
	return json.Marshal(strings.ToUpper(in.Text))
}

// An agent drives a code-mode host over gRPC: it opens a session whose tools it implements,
// runs a cell that calls one, and reads what the model would be shown. The host here runs in the
// same process to keep the example self-contained; `codemode-host --listen grpc://127.0.0.1:0`
// prints the URL of a real one.
func Example() {
	ctx := context.Background()
	runtime, err := jsruntime.NewProvider(jsruntime.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer runtime.Close()
	ln, err := grpchost.Listen(ctx, "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	serving, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- grpchost.New(runtime, grpchost.Options{}).Serve(serving, ln) }()
	defer func() { stop(); <-served }()

	host, err := grpcclient.New("http://"+ln.Addr().String(), grpcclient.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer host.Close()
	session, err := host.CreateSession(ctx, codemode.FromBlocking(upperTool{}), codemode.SessionCellExecutionLimits{})
	if err != nil {
		log.Fatal(err)
	}
	defer session.Shutdown(ctx)
	upper := codemode.ToolDefinition{
		Name: "upper", ToolName: codemode.ToolName{Name: "upper"}, Kind: codemode.ToolKindFunction,
		Description: "Upper-cases text.",
	}
	cell, err := session.Execute(ctx, codemode.ExecuteRequest{
		ToolCallID:   "call-1",
		Source:       `const [a, b] = await Promise.all([tools.upper({text: "code"}), tools.upper({text: "mode"})]); text(a + " " + b);`,
		EnabledTools: []codemode.ToolDefinition{upper},
	})
	if err != nil {
		log.Fatal(err)
	}
	r, err := cell.InitialResponse(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.Kind == codemode.Result, r.ContentItems[0].(codemode.InputText).Text)
	// Output: true CODE MODE
}
