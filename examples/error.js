// Errors. A tool that fails rejects its promise with the tool's stderr, and a call whose input
// does not match the tool's input_schema is rejected before the tool runs: the script can catch
// both. An error the script does not catch fails the cell ("Script failed", the output before
// it kept, exit status 1).
//   codemode run --tools examples/tools.json examples/error.js
try {
  await tools.read_file({ path: "../go.mod" }); // outside the examples folder: os.Root refuses
} catch (err) {
  text(`caught: ${err}`);
}
try {
  await tools.read_file({ file: "data/notes.txt" }); // the input schema wants "path"
} catch (err) {
  text(`caught: ${err}`);
}
await tools.csv_query({ path: "data/sales.csv", where: { regoin: "north" } }); // not caught
text("never reached");
