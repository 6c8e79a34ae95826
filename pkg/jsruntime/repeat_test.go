package jsruntime_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime"
)

// The prelude builds long repeats with padEnd (ADR 53). These tests hold it to native repeat's
// contract: the same strings, the same errors, conversions run once, no more memory.

// TestRepeatBuildsTheSameStringsAsConcatenation compares repeat with a concatenation loop on both
// sides of the fast path's threshold, for Latin-1, wide, astral and lone-surrogate strings and
// lengths that do not divide the chunk.
func TestRepeatBuildsTheSameStringsAsConcatenation(t *testing.T) {
	// The cell runs for seconds on a loaded machine and may yield at its deadline first: it is
	// followed to its result, whose only text is the verdict.
	r := jsruntime.RunCellToEnd(t, `
		const cases = [["x", 8192], ["x", 8193], ["x", 1e6], ["ab", 4096], ["ab", 4097], ["abc", 3001],
			["\u0101b", 3000], ["\uD83D\uDE00", 5000], ["\uD800", 9000], ["é", 70000], ["", 1e6], ["xyz", 0]];
		const bad = [];
		for (const [s, n] of cases) {
			let want = "";
			for (let i = 0; i < n; i++) want += s;
			if (s.repeat(n) !== want) bad.push(JSON.stringify(s) + "x" + n);
		}
		text(bad.length === 0 ? "same" : bad.join(","));`)
	if got := jsruntime.TextsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, []string{"same"}) {
		t.Fatalf("%s %q", jsruntime.ErrorTextOf(r), got)
	}
}

// TestRepeatKeepsNativeErrorsAndConversions pins QuickJS's texts for repeat's errors and checks
// that this and the count are converted once each, fractions truncated, as the native method does.
func TestRepeatKeepsNativeErrorsAndConversions(t *testing.T) {
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	r := jsruntime.ExecuteCell(t, s, `
		const out = [];
		for (const f of [() => "x".repeat(-1), () => "x".repeat(Infinity), () => "xy".repeat(2 ** 30),
			() => "x".repeat(2 ** 31), () => String.prototype.repeat.call(null, 3), () => "x".repeat(Symbol()),
			() => "x".repeat(1n), () => new "x".repeat(2)]) {
			try { out.push("no error " + f().length) } catch (e) { out.push(String(e)) }
		}
		let counted = 0, converted = 0;
		const count = { valueOf() { counted++; return 9000.7 } };
		const self = { toString() { converted++; return "ab" } };
		out.push(String.prototype.repeat.call(self, count).length, counted, converted, "x".repeat(NaN).length);
		const d = Object.getOwnPropertyDescriptor(String.prototype, "repeat");
		out.push(d.writable, d.enumerable, d.configurable, d.value.name, d.value.length, "prototype" in d.value);
		text(out.join("|"));`)
	want := "RangeError: invalid repeat count|RangeError: invalid repeat count|RangeError: invalid string length|" +
		"RangeError: invalid repeat count|TypeError: null or undefined are forbidden|" +
		"TypeError: cannot convert symbol to number|TypeError: Cannot convert a BigInt value to a number|TypeError: not a constructor|" +
		"18000|1|1|0|true|false|true|repeat|1|false"
	if got := jsruntime.TextsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, []string{want}) {
		t.Fatalf("%s\n got %q\nwant %q", jsruntime.ErrorTextOf(r), got, want)
	}
}

// TestRepeatFitsWhereNativeRepeatFits builds a 12 MiB string under a 16 MiB heap cap: padEnd
// allocates the result once, so the fast path needs no more memory than native repeat (a
// doubling repeat would hold one and a half times the string and fail here), and 20 MiB still
// fails with the heap cap's text.
func TestRepeatFitsWhereNativeRepeatFits(t *testing.T) {
	const heapCap = 16 << 20
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{MaxHeapSizeBytes: jsruntime.PtrU64(heapCap)})
	r := jsruntime.ExecuteCell(t, s, `text("x".repeat(12 << 20).length)`)
	if got := jsruntime.TextsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, []string{fmt.Sprint(12 << 20)}) {
		t.Fatalf("12 MiB: %s %q", jsruntime.ErrorTextOf(r), got)
	}
	r = jsruntime.ExecuteCell(t, s, `text("x".repeat(20 << 20).length)`)
	if got := jsruntime.ErrorTextOf(r); got != fmt.Sprintf(jsruntime.OutOfMemoryTextFormat, heapCap) {
		t.Fatalf("20 MiB: %s", got)
	}
}
