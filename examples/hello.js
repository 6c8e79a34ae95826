// A first cell: output helpers, stored values, and a timer. Run it with `make run`, or:
//   codemode run examples/hello.js
text("Hello from a codemode cell!");
text({ answer: 42, tools: ALL_TOOLS.map((t) => t.name) });

const visits = (load("visits") ?? 0) + 1;
store("visits", visits);
text(`visits stored in this session: ${visits}`);

await new Promise((resolve) => setTimeout(resolve, 50));
text("a timer fired, and the cell finished after it");
