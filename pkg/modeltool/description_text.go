package modeltool

// The model-facing texts below are Codex's, verbatim, at the baseline of docs/protocol/README.md#versions
// (codex-rs/code-mode-protocol/src/description.rs, 4f39251a).

// execDescriptionTemplate is the fixed part of the exec tool description. The yield-time
// default ("Defaults to 10000 ms.") is replaced by the configured default when rendering.
const execDescriptionTemplate = "Run JavaScript code to orchestrate/compose tool calls\n" +
	"- Evaluates the provided JavaScript code in a fresh V8 isolate as an async module.\n" +
	"- All nested tools are available on the global `tools` object, for example `await tools.exec_command(...)`. " +
	"Tool names are exposed as normalized JavaScript identifiers, for example `await tools.mcp__ologs__get_profile(...)`.\n" +
	"- Nested tool methods take either a string or an object as their input argument.\n" +
	"- Nested tools return either an object or a string, based on the description.\n" +
	"- Runs raw JavaScript -- no Node, no file system, no network access, no console.\n" +
	"- Accepts raw JavaScript source text, not JSON, quoted strings, or markdown code fences.\n" +
	"- You may optionally start the tool input with a first-line pragma like " +
	"`// @exec: {\"yield_time_ms\": 10000, \"max_output_tokens\": 1000}`.\n" +
	"- `yield_time_ms` asks `exec` to yield early if the script is still running. Defaults to 10000 ms.\n" +
	"- `max_output_tokens` sets the token budget for direct `exec` results. Defaults to 10000 tokens.\n" +
	"- When the JS code is fully evaluated, the isolate's lifetime ends and unawaited promises are silently discarded.\n" +
	"\n" +
	"- Global helpers:\n" +
	"- `exit()`: Immediately ends the current script successfully (like an early return from the top level).\n" +
	"- `text(value: string | number | boolean | undefined | null)`: Appends a text item. " +
	"Non-string values are stringified with `JSON.stringify(...)` when possible.\n" +
	"- " + imageHelperVisible + "\n" +
	"- `audio(audioUrlOrItem: string | { audio_url: string } | AudioContent)`: Appends an audio item. " +
	"`audio_url` should be a base64-encoded `data:` URL. To forward an MCP tool audio block, pass an individual " +
	"`AudioContent` block from `result.content`, for example `audio(result.content[0])`.\n" +
	"- `generatedImage(result: { image_url: string; output_hint?: string })`: Appends an image-generation result " +
	"and its optional output hint. HTTP(S) URLs are not supported.\n" +
	"- `store(key: string, value: any)`: stores a serializable value under a string key for later `exec` calls " +
	"in the same session.\n" +
	"- `load(key: string)`: returns the stored value for a string key, or `undefined` if it is missing.\n" +
	"- `notify(value: string | number | boolean | undefined | null)`: immediately injects an extra " +
	"`custom_tool_call_output` for the current `exec` call. Values are stringified like `text(...)`.\n" +
	"- `setTimeout(callback: () => void, delayMs?: number)`: schedules a callback to run later and returns a " +
	"timeout id. Pending timeouts do not keep `exec` alive by themselves; await an explicit promise if you need " +
	"to wait for one.\n" +
	"- `clearTimeout(timeoutId?: number)`: cancels a timeout created by `setTimeout`.\n" +
	"- `ALL_TOOLS`: metadata for the enabled nested tools as `{ name, description }` entries.\n" +
	"- `yield_control()`: yields the accumulated output to the model immediately while the script keeps running."

// execYieldDefaultSentence is the sentence of the template that carries the yield default.
const execYieldDefaultSentence = "Defaults to 10000 ms."

// imageHelperVisible is the image bullet for models that may request an image detail.
const imageHelperVisible = "`image(imageUrlOrItem: string | { image_url: string; detail?: \"auto\" | \"low\" | " +
	"\"high\" | \"original\" | null } | ImageContent, detail?: \"auto\" | \"low\" | \"high\" | \"original\" | null)`: " +
	"Appends an image item. `image_url` should be a base64-encoded `data:` URL. To forward an MCP tool image, " +
	"pass an individual `ImageContent` block from `result.content`, for example `image(result.content[0])`. " +
	"MCP image blocks may request detail with `_meta: { \"codex/imageDetail\": \"original\" }`. When provided, " +
	"the second `detail` argument overrides any detail embedded in the first argument."

// imageHelperHidden is the image bullet when image details are hidden from the model.
const imageHelperHidden = "`image(imageUrlOrItem: string | { image_url: string } | ImageContent)`: Appends an " +
	"image item. `image_url` should be a base64-encoded `data:` URL. To forward an MCP tool image, pass an " +
	"individual `ImageContent` block from `result.content`, for example `image(result.content[0])`."

// deferredNestedToolsGuidance is added when some nested tools are not described.
const deferredNestedToolsGuidance = "Some deferred nested tools may be omitted from this description. " +
	"They are still available on the global `tools` object and listed in `ALL_TOOLS`.\n" +
	"To find one, filter `ALL_TOOLS` by `name` and `description`."

// waitDescriptionBullets is Codex's build_wait_tool_description.
const waitDescriptionBullets = "- Use `wait` only after `exec` returns `Script running with cell ID ...`.\n" +
	"- `cell_id` identifies the running `exec` cell to resume.\n" +
	"- `yield_time_ms` controls how long to wait for more output before yielding again. Defaults to 10000 ms.\n" +
	"- `max_tokens` limits how much new output this wait call returns. Defaults to 10000 tokens.\n" +
	"- `terminate: true` stops the running cell; false or omitted waits for output.\n" +
	"- `wait` returns only the new output since the last yield, or the final completion or termination result " +
	"for that cell.\n" +
	"- If the cell is still running, `wait` may yield again with the same `cell_id`.\n" +
	"- If the cell has already finished, `wait` returns the completed result and closes the cell."

// mcpTypeScriptPreamble defines the MCP result types referenced by CallToolResult outputs,
// based on https://modelcontextprotocol.io/specification/draft/schema#calltoolresult.
const mcpTypeScriptPreamble = `type Role = "user" | "assistant";
type MetaObject = Record<string, unknown>;
type Annotations = {
  audience?: Role[];
  priority?: number;
  lastModified?: string;
};
type Icon = {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: "light" | "dark";
};
type TextResourceContents = {
  uri: string;
  mimeType?: string;
  _meta?: MetaObject;
  text: string;
};
type BlobResourceContents = {
  uri: string;
  mimeType?: string;
  _meta?: MetaObject;
  blob: string;
};
type TextContent = {
  type: "text";
  text: string;
  annotations?: Annotations;
  _meta?: MetaObject;
};
type ImageContent = {
  type: "image";
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: MetaObject;
};
type AudioContent = {
  type: "audio";
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: MetaObject;
};
type ResourceLink = {
  icons?: Icon[];
  name: string;
  title?: string;
  uri: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  size?: number;
  _meta?: MetaObject;
  type: "resource_link";
};
type EmbeddedResource = {
  type: "resource";
  resource: TextResourceContents | BlobResourceContents;
  annotations?: Annotations;
  _meta?: MetaObject;
};
type ContentBlock =
  | TextContent
  | ImageContent
  | AudioContent
  | ResourceLink
  | EmbeddedResource;
type CallToolResult<TStructured = { [key: string]: unknown }> = {
  _meta?: MetaObject;
  content: ContentBlock[];
  isError?: boolean;
  structuredContent?: TStructured;
  [key: string]: unknown;
};`

// execFreeformGrammar is the Lark grammar of the exec tool's input.
const execFreeformGrammar = `
start: pragma_source | plain_source
pragma_source: PRAGMA_LINE NEWLINE SOURCE
plain_source: SOURCE

PRAGMA_LINE: /[ \t]*\/\/ @exec:[^\r\n]*/
NEWLINE: /\r?\n/
SOURCE: /[\s\S]+/
`
