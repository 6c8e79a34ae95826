package codemodetest

import (
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// storeCases cover store()/load() (docs/protocol/javascript.md#store-and-load): shared between the cells of a session, isolated
// between sessions, snapshotted at cell start, committed at completion but not on termination.
func storeCases() []testCase {
	return []testCase{
		{"stored_values_are_shared_between_cells_but_not_sessions", testStoreSharedNotAcrossSessions},
		{"stored_values_are_snapshotted_at_cell_start", testStoreSnapshot},
		{"stored_values_are_visible_at_once_and_loaded_as_copies", testStoreSameCell},
		{"stored_values_merge_at_completion_with_the_last_completer_winning", testStoreMerge},
		{"stored_values_commit_when_the_script_fails", testStoreCommitsOnError},
		{"termination_claim_prevents_stored_value_commit", testStoreNotCommittedOnTermination},
		{"store_rejects_unserializable_values", testStoreRejectsUnserializable},
	}
}

func testStoreSharedNotAcrossSessions(t *testing.T, h *harness) {
	a := h.session()
	checkResult(t, "store", a.run(`store("k", { v: [1, "two"] }); store(7, "number key");`), "1")
	checkResult(t, "load in the next cell", a.run(`text(JSON.stringify(load("k"))); text(load("7"));`), "2",
		texts(`{"v":[1,"two"]}`, "number key")...)
	b := h.session()
	checkResult(t, "load in another session", b.run(`text(String(load("k"))); text(typeof load("7"));`), "1",
		texts("undefined", "undefined")...)
}

// A cell sees the values as they were when it started, even if another cell commits meanwhile.
func testStoreSnapshot(t *testing.T, h *harness) {
	f := h.session()
	checkResult(t, "seed", f.run(`store("k", "old");`), "1")
	tools, gates := f.gateTools("gate")
	reader := f.execute(`await tools.gate(); text(load("k")); text(String(load("fresh")));`, tools)
	f.awaitToolCall("gate", 1)
	checkResult(t, "writer", f.run(`store("k", "new"); store("fresh", 1);`), "3")
	gates[0].Release()
	checkResult(t, "reader", f.initial(reader), reader.CellID, texts("old", "undefined")...)
	checkResult(t, "later cell", f.run(`text(load("k")); text(String(load("fresh")));`), "4", texts("new", "1")...)
}

func testStoreSameCell(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(`
store("o", { a: [1] });
const x = load("o");
x.a.push(2);
text(JSON.stringify(load("o")));
text(String(load("o") === load("o")));
text(String(load("absent")));`)
	checkResult(t, "result", r, "1", texts(`{"a":[1]}`, "false", "undefined")...)
}

// Completion merges the keys a cell wrote into the session; keys it did not write keep what other
// cells committed meanwhile, and for a key both wrote the later completion wins.
func testStoreMerge(t *testing.T, h *harness) {
	f := h.session()
	checkResult(t, "seed", f.run(`store("shared", "seed"); store("other", "seed");`), "1")
	tools, gates := f.gateTools("gate")
	slow := f.execute(`store("shared", "slow"); await tools.gate();`, tools)
	f.awaitToolCall("gate", 1)
	checkResult(t, "fast writer", f.run(`store("shared", "fast"); store("other", "fast");`), "3")
	gates[0].Release()
	checkResult(t, "slow writer", f.initial(slow), slow.CellID)
	checkResult(t, "reader", f.run(`text(load("shared")); text(load("other"));`), "4", texts("slow", "fast")...)
}

func testStoreCommitsOnError(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(`store("e", "kept"); throw "failed";`)
	checkResponse(t, "failing cell", r, want{kind: codemode.Result, cell: "1", errorText: strp("failed")})
	checkResult(t, "next cell", f.run(`text(String(load("e")));`), "2", texts("kept")...)
}

func testStoreNotCommittedOnTermination(t *testing.T, h *harness) {
	f := h.session()
	tools, _ := f.gateTools("gate")
	c := f.execute(`store("t", "uncommitted"); yield_control(); await tools.gate();`, tools)
	checkResponse(t, "initial response", f.initial(c), want{kind: codemode.Yielded, cell: c.CellID})
	f.awaitToolCall("gate", 1)
	checkResponse(t, "terminate", checkLive(t, "terminate", f.terminate(c.CellID)), want{kind: codemode.Terminated, cell: c.CellID})
	f.awaitCellClosed(c.CellID)
	checkResult(t, "next cell", f.run(`text(String(load("t")));`), "2", texts("undefined")...)
}

// store() refuses with strings, so that the cell's error_text is the bare message the model reads
// (docs/protocol/javascript.md#store-and-load): undefined with "Unable to store ...", a value
// JSON cannot carry (a function, a Symbol) with serde_json's text, a Symbol key, and whatever
// serializing a value throws (a cyclic value's TypeError, whose text is the engine's). Nothing is
// stored.
func testStoreRejectsUnserializable(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(`const o = {}; o.self = o;
const attempt = (f) => { try { f(); text("stored"); } catch (e) { text(typeof e + ": " + String(e).split("\n")[0].split(":")[0]); } };
attempt(() => store("k", undefined));
attempt(() => store("k", () => 1));
attempt(() => store("k", Symbol("s")));
attempt(() => store(Symbol("k"), 1));
attempt(() => store("k", o));
attempt(() => store("k", { get x() { throw "from a getter"; } }));
text(String(load("k")));`)
	checkResult(t, "result", r, "1",
		texts(`string: Unable to store "k". Only plain serializable objects can be stored.`,
			"string: failed to serialize JavaScript value", "string: failed to serialize JavaScript value",
			"string: store key must be a string", "string: TypeError", "string: from a getter", "undefined")...)
}
