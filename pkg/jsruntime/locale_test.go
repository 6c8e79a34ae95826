package jsruntime_test

import (
	"reflect"
	"testing"

	"github.com/codemodehq/codemode/pkg/jsruntime"
)

// The en-US locale (locale.js, docs/adr/0063-en-us-locale-and-a-small-intl.md). Every expected
// text is what Codex 0.171's V8 host printed for the same expression; the differential
// (services/codemode-host, the locale/ cases) compares many more against the host itself.
func TestLocaleOutputIsV8s(t *testing.T) {
	cases := []struct{ expr, want string }{
		{`(1234567.891).toLocaleString()`, "1,234,567.891"},
		{`(1.0005).toLocaleString()`, "1.001"},
		{`(-0).toLocaleString()`, "-0"},
		{`(1e21).toLocaleString()`, "1,000,000,000,000,000,000,000"},
		{`[NaN, Infinity, -Infinity].map((x) => x.toLocaleString()).join(" ")`, "NaN ∞ -∞"},
		{`(-1234.5).toLocaleString("en-US", {style: "currency", currency: "USD"})`, "-$1,234.50"},
		{`(0.1256).toLocaleString("en-US", {style: "percent"})`, "13%"},
		{`(1234567).toLocaleString("en-US", {notation: "compact"})`, "1.2M"},
		{`(12345678901234567890n).toLocaleString()`, "12,345,678,901,234,567,890"},
		{`new Date(0).toLocaleDateString("en-US")`, "1/1/1970"},
		{`new Date(0).toLocaleString()`, "1/1/1970, 12:00:00 AM"},
		{`new Date(Date.UTC(2024, 0, 5, 13, 7, 9)).toLocaleTimeString()`, "1:07:09 PM"},
		{`new Date(Date.UTC(2024, 0, 5)).toLocaleDateString("en-US", {dateStyle: "full"})`, "Friday, January 5, 2024"},
		{`new Date(NaN).toLocaleString()`, "Invalid Date"},
		{`[1234.5, new Date(0)].toLocaleString()`, "1,234.5,1/1/1970, 12:00:00 AM"},
		{`["b", "a", "C", "_", "1"].sort((x, y) => x.localeCompare(y)).join("")`, "_1abC"},
		{`["x10", "x9"].sort(new Intl.Collator(undefined, {numeric: true}).compare).join()`, "x9,x10"},
		{`new Intl.NumberFormat("en-US", {style: "currency", currency: "EUR"}).format(1234.5)`, "€1,234.50"},
		{`new Intl.DateTimeFormat("en-US", {month: "long", day: "numeric"}).format(0)`, "January 1"},
		{`new Intl.PluralRules("en-US", {type: "ordinal"}).select(22)`, "two"},
	}
	for _, c := range cases {
		r := jsruntime.RunCellToEnd(t, `text(`+c.expr+`)`)
		if got := jsruntime.TextsOf(r.ContentItems); !reflect.DeepEqual(got, []string{c.want}) {
			t.Errorf("%s = %q %s, want %q", c.expr, got, jsruntime.ErrorTextOf(r), c.want)
		}
	}
}

// A cell that replaces the intrinsics the locale code uses does not change what it prints: the
// code captured them before any cell ran.
func TestLocaleOutputSurvivesReplacedIntrinsics(t *testing.T) {
	r := jsruntime.RunCellToEnd(t, `
String.prototype.slice = () => "x"; String.prototype.split = () => []; Array.prototype.push = () => 0;
Number.prototype.toExponential = () => "9e9"; RegExp.prototype.test = () => false; Object.defineProperty(Array.prototype, "0", {set() {}});
text((1234.5).toLocaleString() + " " + new Date(0).toLocaleString() + " " + "a".localeCompare("B"))`)
	if got := jsruntime.TextsOf(r.ContentItems); !reflect.DeepEqual(got, []string{"1,234.5 1/1/1970, 12:00:00 AM -1"}) {
		t.Fatalf("got %q %s", got, jsruntime.ErrorTextOf(r))
	}
}

// Other locales format as en-US, as ECMA-402 lets an implementation with one locale do, and say so:
// the resolved locale is en-US and supportedLocalesOf drops them. A fixed offset formats in it, a
// zone that does not exist is V8's RangeError.
func TestLocaleOtherLocalesAndTimeZones(t *testing.T) {
	r := jsruntime.RunCellToEnd(t, `
text((1234.5).toLocaleString("de-DE"));
text(new Intl.NumberFormat("de-DE").resolvedOptions().locale);
text(JSON.stringify(Intl.NumberFormat.supportedLocalesOf(["de-DE", "en-US"])));
text(new Date(0).toLocaleString("en-US", {timeZone: "+05:30", timeZoneName: "short"}));
try { new Date(0).toLocaleString("en-US", {timeZone: "Mars/Base"}) } catch (e) { text(e.name + ": " + e.message) }`)
	want := []string{"1,234.5", "en-US", `["en-US"]`, "1/1/1970, 5:30:00 AM GMT+5:30", "RangeError: Invalid time zone specified: Mars/Base"}
	if got := jsruntime.TextsOf(r.ContentItems); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q %s", got, want, jsruntime.ErrorTextOf(r))
	}
}

// A named zone formats in its local time, from the time zone database (zones.go), with
// ICU's names: US abbreviations in the Americas, GMT offsets elsewhere, en's long names.
func TestLocaleNamedTimeZones(t *testing.T) {
	r := jsruntime.RunCellToEnd(t, `
const d = new Date(Date.UTC(2024, 6, 5, 13, 7, 9));
for (const z of ["America/New_York", "america/los_angeles", "Europe/Berlin", "Asia/Kolkata"]) {
  text(d.toLocaleString("en-US", {timeZone: z, timeZoneName: "short"}) + " | " + d.toLocaleTimeString("en-US", {timeZone: z, timeZoneName: "long"}));
}
text(new Intl.DateTimeFormat("en-US", {timeZone: "america/new_york"}).resolvedOptions().timeZone)`)
	got := jsruntime.TextsOf(r.ContentItems)
	want := []string{
		"7/5/2024, 9:07:09 AM EDT | 9:07:09 AM Eastern Daylight Time",
		"7/5/2024, 6:07:09 AM PDT | 6:07:09 AM Pacific Daylight Time",
		"7/5/2024, 3:07:09 PM GMT+2 | 3:07:09 PM Central European Summer Time",
		"7/5/2024, 6:37:09 PM GMT+5:30 | 6:37:09 PM India Standard Time",
		"America/New_York",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q %s", got, want, jsruntime.ErrorTextOf(r))
	}
}
