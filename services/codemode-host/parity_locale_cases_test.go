package main_test

// localeCases are the en-US locale's cases (docs/adr/0063-en-us-locale-and-a-small-intl.md):
// what V8 with ICU prints for its default locale, from Number, BigInt, Date and Array's
// toLocaleString, String's localeCompare and the Intl subset codemode ships. Codex's host runs with
// TZ=UTC here (parityDriver.restart), the only time zone codemode's Date has.
func localeCases() []parityCase {
	// show prints a value as JSON with every non-ASCII character escaped, so a transcript shows
	// which space (U+0020, U+00A0, U+202F) a format used.
	const show = `const show = (v) => text(JSON.stringify(v).replace(/[\u0080-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0")));`
	const d = `const d = new Date(Date.UTC(2024, 0, 5, 13, 7, 9, 45));`
	const errs = `const err = (f) => { try { show(f()) } catch (e) { show(e.name + ": " + e.message) } };`
	return []parityCase{
		one("locale/number-default", show+`show([0, -0, 1, -1, 0.5, 2.5, 0.0005, 0.0015, 1.0005, 1.2345, 999.9995, 999.9994, 1234.5678, -1234.5678, 1234567.891, 1e21, 1.5e21, 1e-7, -1e-7, 2 ** 53, 0.1 + 0.2, 1e300, 5e-324, 12345.6785, 1e15 + 0.3, NaN, Infinity, -Infinity].map((x) => x.toLocaleString()))`),
		one("locale/number-options", show+`for (const x of [0, 1234.5, -1234.5, 0.1256, -0.0001, NaN]) show([
  x.toLocaleString("en-US", {style: "currency", currency: "USD"}), x.toLocaleString("en-US", {style: "percent"}),
  x.toLocaleString("en-US", {minimumFractionDigits: 2}), x.toLocaleString("en-US", {maximumFractionDigits: 0}),
  x.toLocaleString(undefined, {minimumFractionDigits: 2, maximumFractionDigits: 2}), x.toLocaleString("en", {useGrouping: false}),
  x.toLocaleString("en-US", {style: "currency", currency: "EUR", currencySign: "accounting"})])`),
		one("locale/number-currencies", show+`show(["USD", "EUR", "GBP", "JPY", "CNY", "INR", "KRW", "CAD", "AUD", "MXN", "BRL", "CHF", "SEK", "KWD", "VND", "usd"].map((c) => (1234.5).toLocaleString("en-US", {style: "currency", currency: c})));
show([(1234.5).toLocaleString("en-US", {style: "currency", currency: "USD", currencyDisplay: "code"}), (1234.5).toLocaleString("en-US", {style: "currency", currency: "USD", currencyDisplay: "name"}), (1).toLocaleString("en-US", {style: "currency", currency: "EUR", currencyDisplay: "name"}), (1234.5).toLocaleString("en-US", {style: "currency", currency: "CAD", currencyDisplay: "narrowSymbol"})])`),
		one("locale/number-notation", show+`for (const n of [0, 0.5, 999, 1234, 12345, 123456, 999999, 1234567, 1.5e9, 2.5e12, 1e15, -1234]) show([n.toLocaleString("en-US", {notation: "compact"}), n.toLocaleString("en-US", {notation: "compact", compactDisplay: "long"}), n.toLocaleString("en-US", {notation: "scientific"}), n.toLocaleString("en-US", {notation: "engineering"})]);
for (const s of ["auto", "always", "exceptZero", "never", "negative"]) show([1, -1, 0, -0].map((n) => n.toLocaleString("en-US", {signDisplay: s})));
show([(1234.5678).toLocaleString("en-US", {maximumSignificantDigits: 3}), (0.00012345).toLocaleString("en-US", {maximumSignificantDigits: 2}), (5).toLocaleString("en-US", {minimumSignificantDigits: 3}), (1200).toLocaleString("en-US", {minimumSignificantDigits: 5}), (1234.5).toLocaleString("en-US", {minimumIntegerDigits: 6}), (0.5).toLocaleString("en-US", {minimumFractionDigits: 3})])`),
		one("locale/number-errors", show+errs+`err(() => (1).toLocaleString("en-US", {maximumFractionDigits: 200}));
err(() => (1).toLocaleString("en-US", {minimumFractionDigits: 5, maximumFractionDigits: 2}));
err(() => (1).toLocaleString("xx-invalid-!!"));
err(() => (1).toLocaleString("en-US", {style: "currency"}));
err(() => (1).toLocaleString("en-US", {style: "bogus"}));
err(() => Number.prototype.toLocaleString.call("x"));
err(() => (1).toLocaleString(["en-US", 5]))`),
		one("locale/bigint", show+`show([12345n, -1234567890123456789012345678901234567890n, 0n].map((n) => n.toLocaleString())); show((1234n).toLocaleString("en-US", {style: "currency", currency: "USD"}))`),
		one("locale/date-default", show+d+`show([d.toLocaleString(), d.toLocaleDateString(), d.toLocaleTimeString(), new Date(0).toLocaleString(), new Date(0).toLocaleDateString("en-US"), new Date(0).toLocaleTimeString(),
  new Date(NaN).toLocaleString(), new Date(NaN).toLocaleDateString(), new Date(-1e14).toLocaleString(), new Date(Date.UTC(-50, 0, 1)).toLocaleDateString(), new Date(8.64e15).toLocaleString(), new Date(Date.UTC(2024, 11, 31, 23, 59, 59)).toLocaleString(), new Date(Date.UTC(2024, 5, 15, 12, 0, 0)).toLocaleTimeString()])`),
		one("locale/date-styles", show+d+`for (const ds of [undefined, "full", "long", "medium", "short"]) for (const ts of [undefined, "full", "long", "medium", "short"]) if (ds || ts) show(d.toLocaleString("en-US", {dateStyle: ds, timeStyle: ts}))`),
		one("locale/date-components", show+d+`show([
  d.toLocaleDateString("en-US", {weekday: "long", year: "numeric", month: "long", day: "numeric"}), d.toLocaleDateString("en-US", {month: "short", day: "numeric"}),
  d.toLocaleDateString("en-US", {year: "numeric", month: "2-digit", day: "2-digit"}), d.toLocaleDateString("en-US", {month: "long"}), d.toLocaleDateString("en-US", {year: "numeric", month: "long"}),
  d.toLocaleDateString("en-US", {weekday: "short"}), d.toLocaleDateString("en-US", {year: "2-digit", month: "numeric", day: "numeric"}), d.toLocaleDateString("en-US", {era: "short"}),
  d.toLocaleDateString("en-US", {hour: "numeric"}), d.toLocaleTimeString("en-US", {year: "numeric"}), d.toLocaleString("en-US", {month: "narrow"}),
  d.toLocaleTimeString("en-US", {hour: "2-digit", minute: "2-digit"}), d.toLocaleTimeString("en-US", {hour12: false}), d.toLocaleTimeString("en-US", {hour: "numeric", minute: "2-digit", hour12: true}),
  d.toLocaleString("en-US", {hourCycle: "h23"}), d.toLocaleTimeString([], {hour: "2-digit", minute: "2-digit", second: "2-digit"}), d.toLocaleTimeString("en-US", {fractionalSecondDigits: 3}),
  d.toLocaleTimeString("en-US", {hour: "numeric"}), d.toLocaleTimeString("en-US", {minute: "2-digit"}), d.toLocaleTimeString("en-US", {second: "numeric"}), d.toLocaleTimeString("en-US", {hour: "numeric", hour12: false}),
  d.toLocaleString("en-US", {dayPeriod: "short"}), d.toLocaleString("en-US", {timeZone: "UTC"}), d.toLocaleString("en-US", {timeZoneName: "short"}), d.toLocaleString("en-US", {timeZoneName: "long"}),
  d.toLocaleString("en-US", {timeZoneName: "shortOffset"}), d.toLocaleString("en-US", {timeZoneName: "longOffset"}), d.toLocaleString("en-US", {year: "numeric", month: "long", day: "numeric", hour: "numeric", minute: "2-digit"}),
  new Date(Date.UTC(2024, 0, 5, 1, 7, 9)).toLocaleTimeString("en-US", {hour12: false}), new Date(0).toLocaleTimeString("en-US", {hourCycle: "h24"}), new Date(0).toLocaleTimeString("en-US", {hourCycle: "h11"})])`),
		one("locale/time-zones", show+errs+`const w = new Date(Date.UTC(2024, 0, 5, 13, 7, 9)), s = new Date(Date.UTC(2024, 6, 5, 13, 7, 9));
for (const z of ["America/New_York", "America/Chicago", "America/Denver", "America/Phoenix", "America/Los_Angeles", "America/Anchorage", "Pacific/Honolulu", "America/Toronto", "America/Sao_Paulo", "Europe/London", "Europe/Berlin", "Europe/Moscow", "Africa/Cairo", "Asia/Dubai", "Asia/Tokyo", "Asia/Shanghai", "Asia/Singapore", "Australia/Sydney", "Etc/GMT+5", "+05:30", "-08:00", "america/new_york", "UTC", "Etc/UTC", "GMT"])
  show([z, new Intl.DateTimeFormat("en-US", {timeZone: z}).resolvedOptions().timeZone].concat(...[w, s].map((d) => ["short", "long", "shortOffset", "longOffset"].map((n) => d.toLocaleString("en-US", {timeZone: z, timeZoneName: n})))));
show(new Date(Date.UTC(2024, 2, 10, 6, 59, 59)).toLocaleTimeString("en-US", {timeZone: "America/New_York"}) + " " + new Date(Date.UTC(2024, 2, 10, 7, 0, 0)).toLocaleTimeString("en-US", {timeZone: "America/New_York"}));
show(new Date(Date.UTC(2024, 0, 5, 2)).toLocaleDateString("en-US", {timeZone: "America/Los_Angeles", weekday: "long", dateStyle: undefined}));
err(() => new Date(0).toLocaleString("en-US", {timeZone: "Mars/Base"}));
err(() => new Intl.DateTimeFormat("en-US", {timeZone: "Local"}))`),
		one("locale/date-to-string", `const d = new Date(0); text(String(d)); text(d.toString()); text(d.toTimeString()); text(d.toDateString()); text(`+"`${d}`"+`); text(new Date(NaN).toString()); text(new Date(NaN).toTimeString()); text(Date.prototype.toString.name + Date.prototype.toString.length);
for (const v of [{}, undefined, null, 1, "x", [], () => 1, new Map(), Object.create(null)]) for (const m of ["toString", "toTimeString", "toLocaleString", "toLocaleDateString"]) { try { Date.prototype[m].call(v) } catch (e) { text(e.name + ": " + e.message) } }`),
		one("locale/array", show+`show([1234.5, new Date(0), "x", null, undefined, 1234567n, [5678, 9]].toLocaleString()); show([].toLocaleString()); show([{toLocaleString() { return "L" }}].toLocaleString()); show([1234.5, 0.25].toLocaleString("en-US", {style: "percent"}))`),
		one("locale/compare-ascii", `const cs = []; for (let i = 0; i < 128; i++) cs.push(String.fromCharCode(i));
const sorted = cs.slice().sort((a, b) => a.localeCompare(b));
const groups = [[sorted[0]]];
for (let i = 1; i < sorted.length; i++) { if (sorted[i - 1].localeCompare(sorted[i]) === 0) groups[groups.length - 1].push(sorted[i]); else groups.push([sorted[i]]) }
text(JSON.stringify(groups.map((g) => g.map((c) => c.charCodeAt(0)))))`),
		one("locale/compare-strings", `text(JSON.stringify([["a\u0001b", "ab"], ["a-c", "ab"], ["a c", "ab"], ["Ab", "aB"], ["ab", "AB"], ["a", "A"], ["aB", "ab"], ["a", "ab"], ["", "a"], ["\u0001", ""], ["B", "a"], ["10", "9"], ["file10.txt", "file9.txt"], ["résumé", "resume"], ["é", "f"], ["ä", "b"], ["Z", "é"], ["co-op", "coop"], ["hello world", "hello_world"]].map(([x, y]) => x.localeCompare(y))));
text(["banana", "Apple", "cherry", "apple", "Banana", "_x", "1a", "a1", "A-b", "ab"].sort((x, y) => x.localeCompare(y)).join(" "))`),
		one("locale/compare-options", `text(JSON.stringify([["a10", "a9", {numeric: true}], ["a01", "a1", {numeric: true}], ["1.5", "1.10", {numeric: true}], ["x2y", "x10y", {numeric: true}], ["a", "A", {sensitivity: "base"}], ["a", "á", {sensitivity: "base"}], ["a", "á", {sensitivity: "accent"}], ["a", "A", {sensitivity: "accent"}], ["a", "A", {sensitivity: "case"}], ["a", "B", {caseFirst: "upper"}], ["a", "A", {caseFirst: "upper"}], ["a b", "ab", {ignorePunctuation: true}]].map(([x, y, o]) => x.localeCompare(y, "en", o))));
text(["item10", "item2", "Item1", "item1"].sort((x, y) => x.localeCompare(y, undefined, {numeric: true, sensitivity: "base"})).join(" "))`),
		one("locale/intl-number-format", show+`const nf = new Intl.NumberFormat("en-US", {style: "currency", currency: "USD"});
show(nf.format(1234.5)); show([1, 2.5].map(nf.format)); show(nf.formatToParts(-1234.5)); show(nf.resolvedOptions());
show(new Intl.NumberFormat().resolvedOptions()); show(new Intl.NumberFormat("en", {maximumSignificantDigits: 3}).resolvedOptions()); show(new Intl.NumberFormat("en-US", {style: "percent"}).formatToParts(0.256));
show(new Intl.NumberFormat("en-US").format(1234567.891)); show(new Intl.NumberFormat("en-US").format(12345678901234567890n)); show(new Intl.NumberFormat().format("1234.5")); show(Intl.NumberFormat("en").format(5));
show(Intl.getCanonicalLocales(["EN-us", "zh-hant-tw"])); show([typeof Intl, typeof Intl.NumberFormat, Intl.NumberFormat.name, Intl.NumberFormat.length, Object.prototype.toString.call(nf), Object.prototype.toString.call(Intl)])`),
		one("locale/intl-date-time-format", show+d+`const df = new Intl.DateTimeFormat("en-US", {year: "numeric", month: "long", day: "numeric", hour: "numeric", minute: "2-digit", timeZone: "UTC"});
show(df.format(d)); show(df.formatToParts(d)); show(df.resolvedOptions()); show(new Intl.DateTimeFormat().resolvedOptions()); show(new Intl.DateTimeFormat().format(d));
show(new Intl.DateTimeFormat("en-US", {hour: "numeric", minute: "numeric", hour12: false}).resolvedOptions()); show(new Intl.DateTimeFormat("en-US", {dateStyle: "medium", timeStyle: "short"}).resolvedOptions()); show(new Intl.DateTimeFormat("en-US", {dateStyle: "medium"}).format(0));
show(Intl.DateTimeFormat().resolvedOptions().timeZone)`),
		one("locale/intl-collator-plural", show+`const c = new Intl.Collator(); show(["b", "a", "C", "é", "e"].sort(c.compare)); show(c.resolvedOptions()); show(new Intl.Collator("en", {numeric: true, sensitivity: "base"}).resolvedOptions()); show(["x10", "x9", "x1"].sort(new Intl.Collator(undefined, {numeric: true}).compare));
const pr = new Intl.PluralRules("en-US"); show([0, 1, 2, 1.5].map((n) => pr.select(n))); const po = new Intl.PluralRules("en-US", {type: "ordinal"}); show([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101].map((n) => po.select(n))); show(pr.resolvedOptions())`),
	}
}
