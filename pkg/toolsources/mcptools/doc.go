// Package mcptools serves the tools of MCP servers to codemode cells in the shape Codex gives MCP
// tools in code mode, so a script or a model written against Codex calls them unchanged: each tool
// a server lists becomes tools.mcp__{server}__{tool} (ToolName namespace "mcp__{server}__"), a
// cell's call becomes an MCP tools/call, and its promise resolves with the MCP CallToolResult
// ({content, structuredContent?, _meta?}), or is rejected with the result's text when the server
// sets isError. It speaks MCP through the official Go SDK
// (github.com/modelcontextprotocol/go-sdk); nothing here is protocol code of its own.
//
// The servers are the mcp_servers of a tool manifest (toolprovider.MCPServer): a stdio command
// or a streamable HTTP endpoint. Open starts (or connects to) every server and lists its tools
// once; the servers then live as long as the ToolSet. A call that outlives its server's timeout
// is cancelled, which makes the SDK send MCP's notifications/cancelled. A stdio server that
// exited (or sent a message larger than its max_result_bytes, and was stopped for it) fails the
// calls it had in flight with a text that says so, and the next call starts it again; an HTTP
// server whose connection failed is connected to again by the next call.
//
// OpenManifest is how programs turn a manifest into tool sets: the manifest's command tools
// (a *toolprovider.Provider) and its MCP servers (a *ToolSet), with one function that closes
// them.
package mcptools
