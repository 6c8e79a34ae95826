// A tool whose command never answers is cut off by its timeout (hang_tools.json: 500ms).
text("calling a tool that hangs");
await tools.hang({});
