// Ctrl-C while the cell waits an hour: the cell is terminated.
text("before the interrupt");
notify("ready");
await new Promise((resolve) => setTimeout(resolve, 3_600_000));
