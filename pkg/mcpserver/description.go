package mcpserver

import (
	"strconv"
	"strings"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/modeltool"
)

// The descriptions below are written for MCP clients, not copied from Codex: Codex's exec text
// describes Codex's own engine, tools and output items, and it stays Codex's, byte for byte, where
// Codex reads it (pkg/modeltool). An MCP client is told what it actually runs: codemode's QuickJS
// sandbox, the tools of this server's manifest (their sections and TypeScript declarations are
// rendered exactly as for Codex, by modeltool.NestedToolsReference), notify() as MCP progress, and
// cells that belong to one MCP session (docs/mcp.md). TestExecDescriptionTellsTheTruth runs a
// cell that checks every global named here, present or absent.

// execIntroduction is the first part of exec's description: the engine, how the code reaches the
// tools, the arguments and the answer. Its defaults are filled in by execDescription.
const execIntroduction = "Run JavaScript that calls the tools listed below, and answer with what it outputs.\n" +
	"- The code runs as an async JavaScript module in codemode's sandbox: the QuickJS-ng engine compiled to " +
	"WebAssembly, inside this MCP server. It has standard ECMAScript (Promise and async/await, JSON, Math, Date, " +
	"RegExp, Map, Set, typed arrays, BigInt, and an `Intl` that formats as en-US) and the globals listed under " +
	"\"Globals\", nothing else: no Node or browser APIs (no `console`, `fetch`, `setInterval`), no imports, no file system and no network. " +
	"The tools are its only way out.\n" +
	"- Each tool listed at the end of this description is a method of the global `tools` object: " +
	"`const r = await tools.NAME(input)`; start several and await them together with `Promise.all`. A tool whose " +
	"name is not a JavaScript identifier is called by its normalized name, the first one in its heading. A tool " +
	"takes what its declaration says (an object, or a string for `input: string`) and returns a promise of its " +
	"result; a tool that fails rejects the promise with its error.\n" +
	"- `code` is raw JavaScript source text, not JSON, a quoted string or a markdown code fence. It may start with " +
	"a first-line pragma like `// @exec: {\"yield_time_ms\": 10000, \"max_output_tokens\": 1000}`; exec's own " +
	"`yield_time_ms` and `max_output_tokens` arguments override the pragma's.\n" +
	"- `yield_time_ms` (default {yield} ms): when the code is still running after this long, exec answers with " +
	"the output so far and `Script running with cell ID N`. The cell keeps running: call `wait` with that " +
	"`cell_id` for the rest, or to stop it.\n" +
	"- `max_output_tokens` (default {tokens}): the token budget of the answer; longer output is truncated in the " +
	"middle.\n" +
	"- When the module has finished evaluating, the cell ends: unawaited promises and pending timeouts are " +
	"discarded.\n" +
	"- The answer is text content `Script completed`, `Script failed`, `Script running with cell ID N` or " +
	"`Script terminated`, with the wall time and `Output:`, followed by what the code appended: text, image and " +
	"audio content. A failed script is an error result (`isError: true`) whose last text is `Script error:` and " +
	"the error."

// execGlobals is the reference of the globals a cell has beside standard ECMAScript.
const execGlobals = "Globals:\n" +
	"- `text(value)`: appends a text item; values other than strings are stringified with `JSON.stringify(...)` " +
	"when possible.\n" +
	"- `image(imageUrlOrItem, detail?)`: appends an image (MCP image content): a base64-encoded `data:` URL, " +
	"`{ image_url, detail? }`, or an `ImageContent` block of an MCP tool's result, for example " +
	"`image(result.content[0])`. The detail (`\"auto\"`, `\"low\"`, `\"high\"` or `\"original\"`) is sent in the " +
	"image's `_meta[\"codex/imageDetail\"]`.\n" +
	"- `audio(audioUrlOrItem)`: appends audio (MCP audio content): a base64-encoded `data:` URL, " +
	"`{ audio_url }`, or an `AudioContent` block of an MCP tool's result.\n" +
	"- `content(blockOrBlocks)`: appends MCP content blocks, one or an iterable of them: text as text, images " +
	"and audio as such, resources and resource links as their JSON text.\n" +
	"- `generatedImage({ image_url, output_hint? })`: appends a generated image (a `data:` URL) and its " +
	"optional hint.\n" +
	"- `store(key, value)` and `load(key)`: keep a JSON-serializable value under a string key for later `exec` " +
	"calls of this MCP session; `load` returns `undefined` for a missing key. Each MCP session has its own " +
	"stored values and its own cells.\n" +
	"- `notify(value)`: sends a text at once, while the code runs, as an MCP progress notification " +
	"(`notifications/progress` with the text as its `message`) of the `exec` or `wait` call observing the cell. " +
	"Only a call that carries a `progressToken` gets progress: without one, notify() texts are dropped. Each " +
	"tool call that returns or fails is reported the same way (`tool NAME returned`, `tool NAME failed`).\n" +
	"- `yield_control()`: makes exec answer now, with the output so far and `Script running with cell ID N`, " +
	"while the code keeps running.\n" +
	"- `setTimeout(callback, delayMs?)` and `clearTimeout(id)`: schedule and cancel a callback. A pending " +
	"timeout does not keep the cell running by itself; await a promise to wait for one.\n" +
	"- `as_settled(promises)`: an async iterator of `{ index, status, value | reason }` for each promise (or Map " +
	"entry, indexed by its key) in the order they settle; `stream_settled(promises, emit)` awaits `emit` for each.\n" +
	"- `ALL_TOOLS`: the tools as `{ name, description }` entries.\n" +
	"- `exit()`: ends the code at once, successfully."

// execDescription is exec's description for an MCP client whose cells call tools: the
// introduction, the globals, then the tools in the form of Codex's exec description, which models
// already read (their inputs as TypeScript declarations: docs/protocol/javascript.md#the-exec-tool),
// or a sentence saying there are none.
func execDescription(tools []codemode.ToolDefinition) string {
	intro := strings.NewReplacer(
		"{yield}", strconv.FormatUint(codemode.DefaultExecYieldTimeMs, 10),
		"{tokens}", strconv.Itoa(codemode.DefaultMaxOutputTokensPerExecCall),
	).Replace(execIntroduction)
	reference := modeltool.NestedToolsReference(tools)
	if reference == "" {
		reference = "This server offers cells no tools: `tools` is empty."
	} else {
		reference = "Tools:\n\n" + reference
	}
	return intro + "\n\n" + execGlobals + "\n\n" + reference
}

// waitDescriptionTemplate is wait's description for MCP clients; its defaults are filled in by
// waitDescription.
const waitDescriptionTemplate = "Waits on a cell that `exec` left running, and returns its new output or its end.\n" +
	"- Use `wait` after `exec` (or `wait`) answered `Script running with cell ID N`; `cell_id` is that N.\n" +
	"- Cells belong to the MCP session whose `exec` started them: another session (another client, or a new " +
	"connection) cannot wait on them, and they are terminated when their session ends.\n" +
	"- `yield_time_ms` (default {yield} ms): how long to wait for the cell before answering with its new output. " +
	"If it is still running, the answer says `Script running with cell ID N` again, and you may wait again.\n" +
	"- `max_tokens` (default {tokens}): the token budget of this answer.\n" +
	"- `terminate: true` stops the cell (its pending tool calls are cancelled) and answers `Script terminated`.\n" +
	"- `wait` returns only the output since the last answer about the cell. Once the cell has ended, it returns " +
	"the final result and the cell is gone.\n" +
	"- While `wait` waits, the cell's notify() texts and tool calls are sent as MCP progress notifications if the " +
	"call carries a `progressToken`."

// waitDescription is wait's description for MCP clients.
func waitDescription() string {
	return strings.NewReplacer(
		"{yield}", strconv.FormatUint(codemode.DefaultWaitYieldTimeMs, 10),
		"{tokens}", strconv.Itoa(codemode.DefaultMaxOutputTokensPerExecCall),
	).Replace(waitDescriptionTemplate)
}

// missingCellText explains why a wait found no cell id in this MCP session: the session started
// it and it has ended since, or no exec of this session started it (cells are per session).
func missingCellText(id codemode.CellID, startedHere bool) string {
	prefix := "exec cell " + string(id) + " not found in this MCP session: "
	if startedHere {
		return prefix + "it has ended, and its final result (Script completed, Script failed or Script terminated) " +
			"was returned by exec or wait; a cell is gone once its final result has been returned."
	}
	return prefix + "cells belong to the MCP session whose exec started them, and no exec of this session started " +
		"cell " + string(id) + " (a new connection, or another client, is a new MCP session with cells of its own). " +
		"Pass the cell_id of a `Script running with cell ID N` answer of this session."
}
