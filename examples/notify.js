// notify() reaches the tool owner at once while the cell goes on (Codex shows it to the model
// as an extra output of the exec call; codemode run prints it on stderr):
//   codemode run --tools examples/tools.json examples/notify.js
const { files } = await tools.find_files({ root: "data" });
notify(`found ${files.length} files under data/; reading the notes next`);
const { content } = await tools.read_file({ path: "data/notes.txt" });
text(content.split("\n")[0]);
