// Package mcpserver serves Code Mode to MCP clients: an MCP server (built on the official Go
// SDK, github.com/modelcontextprotocol/go-sdk) whose two tools are Codex's model-facing `exec`
// and `wait`, with Codex's output text (docs/protocol/javascript.md#tool-output), images and audio as MCP image and audio
// content. Their descriptions are written for MCP clients (description.go): the QuickJS sandbox
// they run, the globals it has, notify() as progress, cells per MCP session; the enabled tools
// are presented in the form of Codex's exec description, which models already read, TypeScript
// declarations included (pkg/modeltool; docs/protocol/javascript.md#the-exec-tool).
//
// Each MCP client session gets one code-mode session of a codemode.SessionProvider (the
// in-process QuickJS runtime in `codemode mcp`), created on its first exec or wait; its cells
// call the tools of Options.ToolSets. When the client session ends — stdin closed, the
// connection dropped, an HTTP session deleted or timed out, the server closed — its code-mode
// session is shut down: running cells are terminated and their tool commands killed.
//
// While a cell runs, a request that carries a progress token gets MCP progress notifications:
// one per nested tool call that returns, and one per notify() text (as the message).
//
// Server is the MCP server; Serve is the program `codemode mcp` runs (stdio, or streamable HTTP
// on a loopback address unless a bearer token is set).
package mcpserver
