// yield_control() hands the output so far to the model at once ("Script running with cell ID
// 1"); the cell keeps running, and a wait collects the rest. --wait makes codemode run wait;
// without it, codemode stops the running cell and exits with status 3.
//   codemode run --wait --tools examples/tools.json examples/yield_control.js
text("started: counting the words of every file under data/");
yield_control();
const { files } = await tools.find_files({ root: "data" });
const counts = await Promise.all(files.map((path) => tools.word_count({ path })));
text(`${files.length} files, ${counts.reduce((sum, c) => sum + c.words, 0)} words in all`);
