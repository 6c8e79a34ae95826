// Output helpers: text() of strings, values and several lines; an awaited tool call.
text("hi");
text({ answer: 42, list: [1, 2] });
text("line one\nline two");
text(await tools.upper("shouted"));
