// 20 lines (205 tokens of 4 bytes) against a budget of 10 tokens: truncated in the middle.
for (let i = 1; i <= 20; i++) text(`line ${String(i).padStart(2, "0")} ${"·".repeat(16)}`);
