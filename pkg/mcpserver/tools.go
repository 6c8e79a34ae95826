package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/modeltool"
)

// execInputSchema is the JSON Schema of exec's arguments. Codex's exec is a freeform tool
// (its input is the source itself); MCP tools take a JSON object, so the source is its `code`
// member, and the pragma's two fields may also be given as members (docs/decisions.md).
const execInputSchema = `{"type":"object","properties":{` +
	`"code":{"type":"string","description":"The cell: raw JavaScript source text, optionally starting with a // @exec: pragma line."},` +
	`"yield_time_ms":{"type":"integer","minimum":0,"description":"How long to wait before returning the output of a cell that is still running, in milliseconds; it then keeps running and wait observes it. Overrides the pragma's. Defaults to 10000 ms."},` +
	`"max_output_tokens":{"type":"integer","minimum":0,"description":"Output token budget of this call. Overrides the pragma's. Defaults to 10000 tokens."}` +
	`},"required":["code"],"additionalProperties":false}`

// execTool is the MCP exec tool: Codex's name, and a description for MCP clients with the
// sections and TypeScript declarations of defs in Codex's rendering, which models already read
// (description.go).
func execTool(defs []codemode.ToolDefinition) *mcp.Tool {
	return &mcp.Tool{
		Name:        codemode.PublicToolName,
		Description: execDescription(defs),
		InputSchema: json.RawMessage(execInputSchema),
	}
}

// waitTool is the MCP wait tool: Codex's name and parameters, and a description for MCP clients
// (description.go).
func waitTool() *mcp.Tool {
	return &mcp.Tool{
		Name:        codemode.WaitToolName,
		Description: waitDescription(),
		InputSchema: modeltool.WaitToolParameters(),
	}
}

// maxSafeInteger is Number.MAX_SAFE_INTEGER, the largest yield time or budget exec accepts, as
// for its pragma.
const maxSafeInteger = 1<<53 - 1

// execArguments are the decoded arguments of exec.
type execArguments struct {
	Code            *string `json:"code"`
	YieldTimeMs     *uint64 `json:"yield_time_ms"`
	MaxOutputTokens *uint64 `json:"max_output_tokens"`
}

// parseExecArguments decodes exec's arguments: an object with a string code and optional
// non-negative safe integers yield_time_ms and max_output_tokens, nothing else.
func parseExecArguments(raw json.RawMessage) (execArguments, error) {
	var a execArguments
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return a, fmt.Errorf("exec expects a JSON object {\"code\": string, \"yield_time_ms\"?: integer, \"max_output_tokens\"?: integer}: %v", err)
	}
	if a.Code == nil {
		return a, errors.New("exec expects a JSON object with the JavaScript source as its string member `code`")
	}
	for name, v := range map[string]*uint64{"yield_time_ms": a.YieldTimeMs, "max_output_tokens": a.MaxOutputTokens} {
		if v != nil && *v > maxSafeInteger {
			return a, fmt.Errorf("exec argument `%s` must be a non-negative safe integer", name)
		}
	}
	return a, nil
}

// handleExec runs a cell: the arguments override the source's pragma, which overrides Codex's
// defaults. It answers with the cell's first response (completed, failed, or still running
// after the yield time).
func (s *Server) handleExec(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	start := time.Now()
	args, err := parseExecArguments(req.Params.Arguments)
	if err != nil {
		return errorResult(err.Error()), nil
	}
	parsed, err := modeltool.ParseExecSource(*args.Code)
	if err != nil {
		return errorResult(err.Error()), nil // Codex's text, as the model would see it
	}
	yield := cmpOr(args.YieldTimeMs, parsed.YieldTimeMs, codemode.DefaultExecYieldTimeMs)
	maxTokens := modeltool.ResolveMaxOutputTokens(cmpOrNil(args.MaxOutputTokens, parsed.MaxOutputTokens))
	e, err := s.sessionOf(ctx, req.Session)
	if err != nil {
		return errorResult("exec failed: " + err.Error()), nil
	}
	cs, delegate, err := e.current()
	if err != nil {
		return errorResult("exec failed: " + err.Error()), nil
	}
	callID := "mcp-exec-" + strconv.FormatUint(s.execCalls.Add(1), 10)
	obs := newObserver(ctx, req)
	defer obs.finish()
	cell, err := delegate.admit(obs, func() (*codemode.StartedCell, error) {
		return cs.Execute(ctx, codemode.ExecuteRequest{
			ToolCallID:      callID,
			EnabledTools:    delegate.Definitions(),
			Source:          parsed.Code,
			YieldTimeMs:     &yield,
			MaxOutputTokens: &maxTokens,
		})
	})
	if err != nil {
		return errorResult("exec failed: " + err.Error()), nil
	}
	defer delegate.unwatchCell(cell.CellID, obs)
	resp, err := cell.InitialResponse(ctx)
	if err != nil {
		return nil, err // the request was cancelled (the cell is terminated) or the runtime ended
	}
	return toolResult(resp, time.Since(start), maxTokens), nil
}

// handleWait observes a running cell, or terminates it: the wait tool's contract
// (docs/protocol/javascript.md#the-wait-tool), kept so a model that learned it in Codex uses it
// here unchanged.
func (s *Server) handleWait(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	start := time.Now()
	raw := req.Params.Arguments
	if len(raw) == 0 {
		raw = json.RawMessage(`{}`)
	}
	args, err := modeltool.ParseWaitArguments(string(raw))
	if err != nil {
		return errorResult(err.Error()), nil
	}
	maxTokens := modeltool.ResolveMaxOutputTokens(args.MaxTokens)
	e, err := s.sessionOf(ctx, req.Session)
	if err != nil {
		return errorResult("wait failed: " + err.Error()), nil
	}
	cs, delegate, err := e.current()
	if err != nil {
		return errorResult("wait failed: " + err.Error()), nil
	}
	id := codemode.CellID(args.CellID)
	var outcome codemode.WaitOutcome
	if args.Terminate {
		outcome, err = cs.Terminate(ctx, id)
	} else {
		obs := newObserver(ctx, req)
		defer obs.finish()
		delegate.watchCell(id, obs)
		defer delegate.unwatchCell(id, obs)
		outcome, err = cs.Wait(ctx, codemode.WaitRequest{CellID: id, YieldTimeMs: *args.YieldTimeMs})
	}
	if err != nil {
		return nil, err
	}
	if outcome.Missing {
		outcome.Response = explainMissing(outcome.Response, delegate.startedHere(id))
	}
	return toolResult(outcome.Response, time.Since(start), maxTokens), nil
}

// explainMissing replaces the error text of a missing cell's response (Codex's "exec cell N not
// found") with one that says why an MCP client finds no such cell (missingCellText).
func explainMissing(resp codemode.RuntimeResponse, startedHere bool) codemode.RuntimeResponse {
	text := missingCellText(resp.CellID, startedHere)
	resp.ErrorText = &text
	return resp
}

// cmpOr returns the first non-nil value, or def.
func cmpOr(a, b *uint64, def uint64) uint64 {
	if v := cmpOrNil(a, b); v != nil {
		return *v
	}
	return def
}

// cmpOrNil returns a unless it is nil, else b.
func cmpOrNil(a, b *uint64) *uint64 {
	if a != nil {
		return a
	}
	return b
}
