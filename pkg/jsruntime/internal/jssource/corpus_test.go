package jssource

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// moduleCorpus is code of the kind models write, and syntax QuickJS-ng 0.10 accepts, each
// sample a module whose default export (or error) is the result. TestCorpusModules runs each
// one in QuickJS as written and as printed by Module: the results must be identical, error
// texts and their stack positions included. That is the proof that the printer is faithful.
var moduleCorpus = []string{
	// Tool-call shaped code.
	`const tools = { async search(q) { return { items: [{ n: 1, q }, { n: 2, q }] }; } };
const res = await tools.search({ q: "is:open", per_page: 50 });
const names = res.items.map((i) => i.n * 2);
export default { names, first: res.items[0]?.q?.q ?? null };`,
	`let report = "";
for (const [k, v] of Object.entries({ a: 1, b: 2 })) {
  report += ` + "`- ${k}: ${v > 1 ? \"many\" : \"one\"}\\n`" + `;
}
export default report;`,
	`const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const out = [];
for await (const x of (async function* () { yield 1; await sleep(1); yield 2; })()) out.push(x);
export default out;`,
	`const results = await Promise.allSettled([1, Promise.reject(new Error("x")), 3].map(async (p) => p));
export default results.map((r) => r.status + ":" + (r.value ?? r.reason.message));`,
	`try { null.x } catch (e) { globalThis.msg = e.constructor.name }
export default msg;`,
	`function f(n) {
  if (n > 2) {
    throw new Error("deep " + n);
  }
  return f(n + 1);
}
f(0);`,
	`const o = {
  a: 1,
  // a comment
  b: [1, 2, 3].map(x => x ** 2),
  /* block
     comment */
  c: ` + "`multi\nline ${1 + 1}`" + `,
};
throw new TypeError(JSON.stringify(o));`,
	// Classes.
	`class A {
  #x = 1; static count = 0; y = this.#x + 1;
  static { A.count = 10; }
  get x() { return this.#x; } set x(v) { this.#x = v; }
  static has(o) { return #x in o; }
  #priv() { return "p"; } callPriv() { return this.#priv(); }
  static async *gen() { yield 1; }
}
const a = new A(); a.x = 5;
export default [a.x, a.y, A.count, A.has(a), A.has({}), a.callPriv()];`,
	`class B extends Array { constructor(...a) { super(...a); } sum() { return this.reduce((s, x) => s + x, 0); } }
export default new B(1, 2, 3).sum();`,
	`class C { static #s = 3; static get s() { return C.#s; } accessor = 2; static async = 4; static get = 5; }
export default [C.s, new C().accessor, C.async, C.get];`,
	`class D { 'quoted key'() { return 1 } 42() { return 2 } [Symbol.iterator]() { return [1,2][Symbol.iterator]() } }
export default [new D()['quoted key'](), new D()[42](), [...new D()]];`,
	// Operators and literals.
	`let x = null; x ??= 5; let y = 0; y ||= 7; let z = 1; z &&= 9;
export default [x, y, z, 2 ** 3 ** 2, (-2) ** 2, 7 % 3, 1_000_000, 0x1F, 0o17, 0b101, .5e1, 10n ** 20n + 1n === 100000000000000000001n];`,
	`const a = { b: { c: () => 1 } };
export default [a?.b?.c?.(), a?.x?.c(), a.b?.["c"]?.(), a?.x ?? "none"];`,
	`const { p, q: [r, ...s], ...rest } = { p: 1, q: [2, 3, 4], t: 5, u: 6 };
const [m = 10, , n = 20] = [undefined, 1];
export default [p, r, s, rest, m, n];`,
	`function f(a, b = a + 1, ...c) { return [a, b, c]; }
export default [f(1), f(1, 2, 3, 4), ((x, y) => x + y)(2, 3)];`,
	`export default [typeof null, typeof undefined, void 0, !0, ~5, +"3", -"-3", delete {}.x, "a" in { a: 1 }, [] instanceof Array];`,
	`let i = 0; const j = i++ + ++i; const k = i-- - --i;
export default [i, j, k, 1 - -1, 1 + +1, 1 - - 1];`,
	`export default [1 < 2, 2 > 1, 1 <= 1, 1 >= 2, 1 == "1", 1 === "1", 1 != 2, 1 !== 1, 5 & 3, 5 | 3, 5 ^ 3, 1 << 3, -16 >> 2, -16 >>> 28];`,
	`let v = 10; v += 1; v -= 2; v *= 3; v /= 9; v %= 2; v **= 3; v <<= 2; v >>= 1; v >>>= 1; v &= 7; v |= 8; v ^= 1;
export default v;`,
	`export default [0.1 + 0.2, 1e21, 1 / 3, -0, 5e-7, 123.456e2, 0.0000001, 2 ** 53 + 1];`,
	`export default [10n, -5n / 2n, 2n ** 64n, BigInt.asUintN(8, 257n), typeof 1n, 0x1fn, 0b11n, 0o7n];`,
	// Strings and templates.
	`export default ["a\tb", 'it\'s', "\u00e9\u{1F600}", "\x41", "line\
continued", "\\", "quote\"d", '\r\n'.length];`,
	"const tag = (s, ...v) => s.raw.join(\"|\") + \"/\" + v.join(\",\");\nexport default [tag`a${1}b\\n${2}c`, String.raw`\\u{41}\\x`, `${`${`deep`}`}`, tag`\\unicode`];",
	"export default `a\r\nb\rc`.length + \"|\" + String.raw`x\r\ny`.length;",
	"export default [`\u2028`.length, \"\u2028\u2029\".length, `$`, `\\${}`, `${'$'}{}`];",
	"export default `one\ntwo\nthree`.split(\"\\n\").length;\n",
	// Regular expressions, everywhere they may stand.
	`const s = "Hello World 2024";
export default [/o/g[Symbol.replace](s, "0"), s.replace(/\s+/g, "_"), /(?<y>\d{4})/.exec(s).groups.y, /[/]/.test("/"), /a/dgimsuy.flags, /[\p{L}--[a-z]]/v.test("A")];`,
	`let r; if (true) /x/.test("x") && (r = 1);
export default r;`,
	`let r = 0; {}
/foo/.test("foo") && (r = 2);
export default r;`,
	`const x = 8, g = 2, i = 1;
const d = x
/g/i;
export default d;`,
	`let n = 0; for (const c of "abc") /b/.test(c) && n++;
export default n;`,
	`export default /re/g.source + typeof /x/ + [/a/].length;`,
	`const f = () => /x/; const o = { k: /y/ }; const a = [/z/, !/w/];
export default [f().source, o.k.source, a[0].source, a[1]];`,
	`function* g() { yield /a/; yield /b/g; }
export default [...g()].map(String);`,
	`async function f() { return await /q/.source; }
export default await f();`,
	`export default (1) / 2 / 1;`,
	`const a = [8]; export default a[0] / 2 / 1 + ({ v: 4 }).v / 2;`,
	"export default `${1}` / 2 / 1;",
	`let x = 9; x++ / 3; x--/3; export default x / 3 / 1;`,
	`const o = { import: 6, await: 4, yield: 2 };
export default [o.import / 2 / 1, o.await / 2 / 1, o.yield / 2 / 1];`,
	`const o = { if: 8 }; export default o.if/2/1;`,
	`const div = 2; export default [4 /div/ 1, 4/ div /1];`,
	`let y = 3; label: { y = 4 } /x/.test("x");
export default y;`,
	`switch (1) { case /1/.test("1") ? 1 : 0: break; default: }
export default typeof /x/;`,
	`const s = "a/b/c"; export default s.split("/").length / 3;`,
	`export default [1 /* c */ / 2, 4 / /* c */ 2];`,
	// Control flow.
	`outer: for (let i = 0; i < 3; i++) { for (let j = 0; j < 3; j++) { if (j === 1) continue outer; if (i === 2) break outer; } }
let k = 0; do { k++ } while (k < 3)
while (k < 6) k++;
export default k;`,
	`function f(x) { switch (x) { case 1: return "one"; case "2": { return "two" } default: return "other" } }
export default [f(1), f("2"), f(3)];`,
	`let log = []; try { throw 1 } catch { log.push("c") } finally { log.push("f") }
try { log.push("t") } catch (e) {} 
export default log;`,
	`const it = { from: 1, to: 3, [Symbol.iterator]() { let c = this.from, t = this.to; return { next: () => c <= t ? { value: c++, done: false } : { value: undefined, done: true } }; } };
export default [...it];`,
	`function* fib() { let [a, b] = [0, 1]; for (;;) { yield a; [a, b] = [b, a + b]; } }
const out = []; for (const v of fib()) { if (v > 20) break; out.push(v); }
export default out;`,
	`async function* ag() { yield* [1, 2]; yield await Promise.resolve(3); }
const out = []; for await (const v of ag()) out.push(v);
export default out;`,
	`let s = 0; for (const k in { a: 1, b: 2 }) s += k.length; for (var q = 0, w = 1; q < 2; q++, w *= 2);
export default [s, q, w];`,
	`if (1) ; else ;
if (0) {} else if (1) { globalThis.r = "elif" }
export default r;`,
	// ASI.
	`let a = 1
let b = a
++b
const c = b
;[1, 2].forEach((x) => { a += x })
export default [a, b, c]`,
	`function f() {
  return
    42
}
export default f()`,
	`let x = 5
const y = x
(function () {})
`,
	`const a = 1, b = 2
const t = ` + "`x`" + `
export default [a, b, t]`,
	// Functions and scope.
	`const add = (a) => (b) => a + b; const obj = { m() { return this.v }, v: 3, get g() { return 4 }, set s(x) { this.v = x } };
obj.s = 9;
export default [add(1)(2), obj.m(), obj.g, (function () { return typeof this })(), (() => typeof this)()];`,
	`function outer() { const x = 1; function inner() { return x + y; } var y = 2; return inner(); }
export default [outer(), typeof hoisted, hoisted()];
function hoisted() { return "h"; }`,
	`const f = async () => { await null; return "a" }; const g = async x => x * 2; const h = async function named() { return named.name };
export default [await f(), await g(2), await h()];`,
	`export default [function () {}.name, (() => {}).name, class {}.name, ({ m() {} }).m.name, function named() {}.length, ((a, b) => 0).length];`,
	`export default new.target === undefined ? (function () { return new.target === undefined })() : 0;`,
	`function F() { if (!new.target) return "call"; this.v = "new" }
export default [F(), new F().v];`,
	// Objects and arrays.
	`const k = "dyn"; const o = { [k + 1]: 1, "s p": 2, 3: 3, __proto__: { inh: 4 }, ...{ sp: 5 }, k };
export default [o.dyn1, o["s p"], o[3], o.inh, o.sp, o.k, Object.keys(o)];`,
	`export default [[1, , 3].length, [...[1, 2], ...new Set([2, 3])], Array.from({ length: 3 }, (_, i) => i * i), [3, 1, 2].toSorted(), [1, 2, 3].at(-1), Object.groupBy([1, 2, 3], (x) => (x % 2 ? "odd" : "even"))];`,
	`const m = new Map([[1, "a"]]); const s = new Set([1, 1, 2]); const wm = new WeakMap();
export default [m.get(1), s.size, wm instanceof WeakMap, structuredClone === undefined ? "no sc" : "sc"];`,
	`export default [JSON.stringify({ a: [1, { b: 2 }] }), JSON.parse('{"x":[1,2]}').x[1], Object.fromEntries([["a", 1]]), Object.entries({ b: 2 })];`,
	`export default [Math.max(...[1, 5, 3]), Number("0x10"), parseInt("08"), (255).toString(16), (3.14159).toFixed(2), Number.isInteger(5.0)];`,
	`export default ["abc".padStart(5, "-"), "a-b-c".replaceAll("-", "+"), "  x ".trim(), "Hi".at(-1), "x".repeat(3), "abc".includes("b")];`,
	`const d = new Date(Date.UTC(2024, 0, 2));
export default [d.toISOString(), d.getUTCDay(), typeof Date.now()];`,
	// Getters, setters, labels, misc.
	`const o = Object.defineProperty({}, "x", { get() { return 7 }, enumerable: false });
export default [o.x, Object.keys(o).length, "x" in o];`,
	`a: b: c: for (;;) break a;
export default "labels";`,
	`const sym = Symbol("s"); const o = { [sym]: 1 };
export default [o[sym], sym.description, typeof sym, Symbol.for("x") === Symbol.for("x")];`,
	`export default [globalThis === this, typeof this, typeof globalThis, typeof import.meta, typeof import.meta.url];`,
	`debugger;
export default "debugger";`,
	`export default (function () { "use strict"; return this })() === undefined;`,
	`export default [eval("1 + 1"), (0, eval)("typeof this"), new Function("a", "b", "return a * b")(3, 4)];`,
	`const err = new RangeError("r", { cause: "c" });
export default [err.name, err.message, err.cause, err instanceof Error, Object.prototype.toString.call(err)];`,
	`export default await new Promise((resolve) => queueMicrotask(() => resolve("micro")));`,
	`const p = Promise.withResolvers ? "wr" : "no"; export default p;`,
	`export const named = 1; export let later = 2; export function fn() {} export class K {}
const local = 3; export { local as aliased, local as "string name" };
export default [named, later, typeof fn, typeof K];`,
	`export default class Foo { static bar = 1 }`,
	`export default function () { return 1 }`,
	`export default async function named() {}`,
	`export default (a, b) => a + b;`,
	`export default /x/;`,
	"export default `t`;",
	`export { };`,
	// Unicode: identifiers, whitespace and line terminators between tokens.
	"const café = 1, ñ = 2, \u03c0 = 3, $_ = 4, \u0061b = 5;\nexport default [café, ñ, π, $_, ab];",
	"const a\u00a0=\u20001,\u3000b\ufeff=\u20282;\nexport default\u2029[a,\u1680b];",
	"let x = 1;\u2028let y = 2;\u2029throw new Error(String(x + y));",
	"let x = 1;\r\nlet y = 2;\rlet z = 3;\nthrow new Error(String(x + y + z));",
	"// c\rthrow new Error('after cr comment')",
	"/*\n\n*/ throw new Error('after multi-line comment')",
	"#!/usr/bin/env qjs\nthrow new Error('after hashbang')",
	"export default 1\t+\v2\f+ 3;",
	"const s = 'a\u2028b\u2029c'; export default [s.length, s.charCodeAt(1)];",
	"const \\u{62}c = 1; export default \\u0062c + bc;",
	// More regex and division edge cases.
	`let a = 4, b = 2, g = 1; a
/b/g
export default a;`,
	`function f() {}
/x/.test("x")
export default f.name;`,
	`class K {}
/y/.test("y")
export default K.name;`,
	`const o = {}
/2/.source
export default o;`,
	`let x = 1; if (x) { x++ } else /z/.test("z")
export default x;`,
	`let n = 0; do /a/.test("a") && n++; while (n < 2)
export default n;`,
	`let t = typeof /x/, v = void /x/, d = delete /x/.y, i = "source" in /x/;
export default [t, v, d, i];`,
	"let s = `${/a/.source}${1 / 2}${`${/b}/.source}`}`;\nexport default s;",
	`const r = [/a/, /b/g].map((x) => x.flags); const q = x => /c/;
export default [r, q().source, ((a) => a / 2)(8)];`,
	`label: /x/.test("x");
export default "labelled regex";`,
	`const v = 1 ? /yes/ : /no/; const w = 0 || /or/; const z = null ?? /nul/;
export default [v.source, w.source, z.source];`,
	`export default [/{/.test("{"), /]/.test("]"), /a{,2}/.test("a{,2}"), /\1(a)/.test("a"), /[\w-]/.test("-")];`,
	`export default [/(?<year>\d{4})-(?<m>\d\d)/.exec("2024-05").groups, /a.c/s.test("a\nc"), /^b/m.test("a\nb"), "aBc".replace(/b/i, "x")];`,
	`export default ["x/y".split(/\//), "a+b".replace(/\+/, "-"), /[/\]]/.test("]")];`,
	`let x = 10, y = 2; x /= y; x /=1; export default x;`,
	`let q = 8 /* c */ /2/ 2; export default q;`,
	`let x = 0; do x++; while (x < 2) /x/.test('x') && x++;
export default x;`,
	// ASI and restricted productions.
	`let i = 0
i
++
i
export default i`,
	`function g() { let a = 1
  return (
    a + 1
  )
}
export default g()`,
	`async function h() { return await
  Promise.resolve(5) }
export default await h()`,
	`const x = [1, 2]
const y = x
[0]
export default y`,
	`var a = 1, b = 2
a
+b
export default a`,
	`let c = 0
const f = () => c++
f()
f()
export default c`,
	// Getters, setters and keywords as names.
	`const o = { get: 1, set: 2, static: 3, async: 4, await: 5, yield: 6, let: 7, of: 8, new: 9, class: 10, function: 11, if: 12, import: 13, export: 14, default: 15 };
export default Object.values(o).reduce((a, b) => a + b);`,
	`class N { get() { return "g" } set() { return "s" } static() { return "st" } async() { return "a" } }
const n = new N(); export default [n.get(), n.set(), n.static(), n.async()];`,
	`const async = (x) => x * 2; const of = 3; const get = 4; let yieldv = 1;
export default [async(of), get, yieldv];`,
	`for (const of of [1, 2]) globalThis.last = of;
export default last;`,
	// Numbers and strings in odd spellings.
	`export default [1e3, 1E-3, 0B11, 0O17, 0XfF, 1_0.0_1, .1_1, 0.0, 00 === undefined ? 0 : 1];`,
	`export default ['\x41\u0042\u{43}\103'.length === 4 ? "ok" : "no"];`,
	`export default ["\0", "\08".length, "\u{10FFFF}".length, "\uD83D\uDE00".codePointAt(0)];`,
	"export default [`\\``, `\\\\`, `a\\\nb`, `\\u{61}`];",
	// Deep nesting and long lines.
	`export default [[[[[[[[[[1]]]]]]]]]].flat(Infinity).concat(((((((((2))))))))));`,
	`const o = {a:{b:{c:{d:{e:{f:{g:1}}}}}}}; export default o?.a?.b?.c?.d?.e?.f?.g;`,
	// More of what models write.
	`const m = new Map([["a", 1], ["b", 2]]); const out = [];
for (const [k, v] of m) out.push(k + v);
try { JSON.parse("{") } catch ({ name, message }) { out.push(name) }
try { null.x } catch { out.push("optional binding") }
export default out;`,
	`function f({ a = 1, b: { c } = { c: 2 }, ...rest } = {}, [d, e = 5] = []) { return [a, c, rest, d, e]; }
export default [f(), f({ a: 3, b: { c: 4 }, z: 9 }, [7])];`,
	`const mk = () => ({ v: 1 }); const id = (x) => x; const add = (a, b = 2, ...c) => a + b + c.length;
export default [mk(), id({}), add(1), add(1, 1, 1, 1)];`,
	`const x = { a: [{ y: 1 }] };
export default [x?.a?.[0]?.y, x.b?.[0].y, (null ?? 0) || 3, 1 && (0 ?? 2)];`,
	`class Q { static #count = 0; #id; constructor() { this.#id = ++Q.#count; } #secret() { return this.#id } reveal() { return this.#secret() } static get count() { return Q.#count } }
new Q(); const q2 = new Q();
export default [q2.reveal(), Q.count];`,
	`class S { static async *[Symbol.asyncIterator]() { yield 1; yield 2 } }
const got = []; for await (const v of S) got.push(v);
export default got;`,
	`const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const t0 = Date.now(); await sleep(2);
export default Date.now() - t0 >= 0;`,
	`let out = ""; switch (3) { case 1: { out = "one"; break } case 3: { out = "three" } case 4: out += "+four"; break; default: out = "d" }
export default out;`,
	`const pages = []; let page = 1, more = true;
while (more) { pages.push(page); more = page++ < 3; }
export default pages;`,
	`const items = [{ n: "b", v: 2 }, { n: "a", v: 1 }];
export default items.toSorted((x, y) => x.n.localeCompare(y.n)).map(({ n, v }) => ` + "`${n}=${v}`" + `).join("&");`,
	`const text = "Line one\nLine two\n\nLine four";
export default text.split(/\n+/).filter(Boolean).map((l, i) => ` + "`${i + 1}. ${l}`" + `);`,
	`const data = { users: [{ id: 1, tags: ["x"] }, { id: 2, tags: [] }] };
const summary = data.users.reduce((acc, { id, tags }) => ({ ...acc, [id]: tags.length > 0 ? tags.join(",") : "(none)" }), {});
export default summary;`,
	`const fmt = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1 });
export default typeof fmt.format(1234.56);`,
	`export default await Promise.race([new Promise((r) => setTimeout(() => r("slow"), 5)), Promise.resolve("fast")]);`,
	`const counts = {}; for (const w of "a b a c b a".split(" ")) counts[w] = (counts[w] ?? 0) + 1;
export default Object.entries(counts).sort(([, a], [, b]) => b - a);`,
	`let s = 0; for (let i = 0, j = 10; i < j; i += 2, j--) s += i * j;
export default s;`,
	`const arr = Array.from({ length: 5 }, (_, i) => i); const [first, , third, ...others] = arr;
export default { first, third, others, last: arr.at(-1), has: arr.includes(3), idx: arr.findLast((x) => x % 2) };`,
	`function* take(it, n) { for (const x of it) { if (n-- <= 0) return; yield x; } }
function* nat() { let i = 0; while (true) yield i++; }
export default [...take(nat(), 4)];`,
	`const p = new Proxy({}, { get: (_, k) => k.toString().toUpperCase() });
export default [p.abc, Reflect.ownKeys({ a: 1, [Symbol.iterator]: 2 }).length];`,
	`const re = /(\w+)@(\w+)\.com/g; const found = [...'a@b.com c@d.com'.matchAll(re)].map((m) => m[2]);
export default found;`,
	`const date = "2024-03-05T10:20:30Z"; const [y, mo, d] = date.slice(0, 10).split("-").map(Number);
export default { y, mo, d, iso: new Date(date).toISOString() };`,
	`export default (() => { try { return "try" } finally { globalThis.fin = "ran" } })() + fin;`,
	`const big = 2n ** 64n; export default [big.toString(), BigInt(Number.MAX_SAFE_INTEGER) + 2n > 0n, typeof (5n * 2n)];`,
	`const wr = new WeakRef({}); const reg = new FinalizationRegistry(() => {});
export default [typeof wr.deref, typeof reg.register];`,
	`const json = JSON.stringify({ a: 1, b: [1, 2] }, null, 2);
export default json.split("\n").length;`,
	`export default [[1, [2, [3]]].flat(2), "a-b_c".split(/[-_]/), Object.assign({}, { a: 1 }, null, { b: 2 })];`,
	`const enc = encodeURIComponent("a b&c"); export default [enc, decodeURIComponent(enc), escape === undefined];`,
	// Syntax errors: the same error, at the same place.
	`let x = ;`,
	`
  function f( {
}`,
	`const a = 1;
a = 2;`,
	`let a; let a;`,
	`export default 010;`,
	`export default "\101";`,
	`with ({}) {}`,
	`await: 1;`,
	`function f() { await 1 }`,
	`yield 1`,
	`class A { constructor() {} constructor() {} }`,
	`new.target`,
	`break;`,
	`return 1`,
	`({ a: 1 } = 1)`,
	`const x;`,
	"`${`",
	`/x/gg`,
	`x = 1 +;`,
	`if (a) function f() {}`,
	`export default 0.toString()`,
	`let let = 1`,
	`var eval = 1`,
	`"use strict"; delete x;`,
	"imp\\u006frt('x')",
	"var o = {imp\\u006frt: 1}; export default o",
	"\\u0061wait: 1",
	// Runtime errors with positions.
	`const o = {};
o.missing.call();`,
	`function a() { b(); }
function b() { c(); }
function c() { throw new Error("stack"); }
a();`,
	`const re = /x/; if (true) /y/.test("y"); function thrower() { throw new Error("after regexes") }
thrower();`,
	"const t = `\n\n${(() => { throw new Error('in template') })()}`;",
	`undefinedVariable;`,
	`await Promise.reject(new Error("rejected"));`,
	`throw "a string";`,
	`throw { toString() { return "obj" } };`,
}

// scriptCorpus is code given to eval: TestCorpusScripts compares (0, eval)(source) with
// (0, eval)(Script(source).Code).
var scriptCorpus = []string{
	`1 + 1`,
	`var x = 5; x * 2`,
	`"see import(x)"`,
	`var yield = 3; yield`,
	`function f() { return this === globalThis } f()`,
	`let o = { a: 1 }; with (o) { a + 1 }`,
	`var x = 1 <!-- an HTML-like comment
; x`,
	`var y = 2
--> HTML close comment at the start of a line
; y`,
	`"use strict"; var x = 1; x`,
	`"\101"`,
	`throw new Error("from eval")`,
	"\n\nthrow new SyntaxError('line 3')",
	`eval("1 + 2")`,
	`let a = 1;
a++
a`,
	`x = /re/.test("re")`,
	`#!/bin/hashbang
"after"`,
	`import.meta`,
	`let =`,
}

// functionCorpus are function constructor calls: parameters, body and the arguments of a
// call. TestCorpusFunctions compares new Function(...params, body)(...args) with the function
// that the printed source evaluates to.
var functionCorpus = []struct {
	kind         FunctionKind
	params       []string
	body, args   string
	constructors string // the constructor expression in JavaScript
}{
	{PlainFunction, []string{"a", "b"}, "return a + b", "1, 2", "Function"},
	{PlainFunction, []string{"a, b", "c = a * b"}, "return [a, b, c]", "2, 3", "Function"},
	{PlainFunction, nil, "return typeof this", "", "Function"},
	{PlainFunction, []string{"...rest"}, "return rest.length", "1, 2, 3", "Function"},
	{PlainFunction, []string{"{ x, y } = {}"}, "return x + y", "{ x: 1, y: 2 }", "Function"},
	{PlainFunction, []string{"a // comment"}, "return a", "7", "Function"},
	{PlainFunction, []string{"a /* c */"}, "return a // end", "8", "Function"},
	{PlainFunction, nil, "throw new Error('in body')", "", "Function"},
	{PlainFunction, nil, "-->html close comment\nreturn 1", "", "Function"},
	{PlainFunction, nil, "'use strict'; return this", "", "Function"},
	{AsyncFunction, []string{"x"}, "return await x", "Promise.resolve(4)", "(async function () {}).constructor"},
	{GeneratorFunction, []string{"n"}, "for (let i = 0; i < n; i++) yield i", "3", "(function* () {}).constructor"},
	{AsyncGeneratorFunction, nil, "yield 1; yield await 2", "", "(async function* () {}).constructor"},
	{PlainFunction, []string{"a = /re/"}, "return a.source", "", "Function"},
	{PlainFunction, nil, "return `\n${1}\n`", "", "Function"},
}

// TestCorpusModules is the differential test of Module: QuickJS must give the same result for
// the original and the printed code.
func TestCorpusModules(t *testing.T) {
	if testing.Short() {
		t.Skip("runs QuickJS")
	}
	for _, src := range moduleCorpus {
		prog, err := Module(src)
		want := runQJS(t, src)
		if err != nil {
			checkSyntaxErrorAgrees(t, src, err, want)
			continue
		}
		got := runQJS(t, prog.Code)
		if !sameOutcome(want, got, ModuleFile, src, prog.Code) {
			t.Errorf("source %q\nprinted %q\nQuickJS on the source:  %q\nQuickJS on the printed: %q", src, prog.Code, want, got)
		}
	}
}

// TestCorpusScripts is the differential test of Script, through indirect eval.
func TestCorpusScripts(t *testing.T) {
	if testing.Short() {
		t.Skip("runs QuickJS")
	}
	for _, src := range scriptCorpus {
		want := runQJS(t, "export default (0, eval)("+jsString(src)+");")
		prog, err := Script(src)
		if err != nil {
			checkSyntaxErrorAgrees(t, src, err, want)
			continue
		}
		got := runQJS(t, "export default (0, eval)("+jsString(prog.Code)+");")
		if !sameOutcome(want, got, EvalFile, src, prog.Code) {
			t.Errorf("source %q\nprinted %q\nQuickJS on the source:  %q\nQuickJS on the printed: %q", src, prog.Code, want, got)
		}
	}
}

// TestCorpusFunctions is the differential test of Function: the function the constructor
// makes and the one the printed code evaluates to are called the same way.
func TestCorpusFunctions(t *testing.T) {
	if testing.Short() {
		t.Skip("runs QuickJS")
	}
	const call = "\nconst r = f(%s);\nexport default r?.next ? [r.next(), r.next()] : await r;"
	for _, c := range functionCorpus {
		var args []string
		for _, p := range c.params {
			args = append(args, jsString(p))
		}
		args = append(args, jsString(c.body))
		construct := "const f = (" + c.constructors + ")(" + strings.Join(args, ", ") + ");"
		want := runQJS(t, construct+fmt.Sprintf(call, c.args))
		prog, err := Function(c.kind, c.params, c.body)
		if err != nil {
			t.Errorf("%s: %v", construct, err)
			continue
		}
		got := runQJS(t, "const f = (0, eval)("+jsString(prog.Code)+");"+fmt.Sprintf(call, c.args))
		if !sameOutcome(want, got, EvalFile, "", "") {
			t.Errorf("%s\nprinted %q\nQuickJS on the constructor: %q\nQuickJS on the printed:    %q", construct, prog.Code, want, got)
		}
	}
}

// checkSyntaxErrorAgrees checks a source that Module or Script refused: it must be a
// *SyntaxError, and QuickJS must refuse the source too, on the same line. The two parsers word
// their messages differently and may point at neighbouring tokens.
func checkSyntaxErrorAgrees(t *testing.T, src string, err error, want string) {
	t.Helper()
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Errorf("source %q: %v, want a *SyntaxError", src, err)
		return
	}
	m := positionPattern.FindStringSubmatch(want)
	if !strings.HasPrefix(want, "error: SyntaxError: ") || m == nil || m[2] != strconv.Itoa(se.Line) {
		t.Errorf("source %q\nrefused: %v\nQuickJS on the source: %q", src, err, want)
	}
}

// positionPattern matches a position in a QuickJS error text: file, line and column.
var positionPattern = regexp.MustCompile(`(exec_main\.mjs|<input>):(\d+):(\d+)`)

// sameOutcome compares QuickJS's outcomes for a source and its printed form. They must be
// equal, except for the columns of positions in file on lines the printer changed: a
// rewritten import() or a regular expression put in parentheses shifts the tokens after it.
func sameOutcome(want, got, file, src, printed string) bool {
	if want == got {
		return true
	}
	changed := changedLines(src, printed)
	blur := func(text string) string {
		return positionPattern.ReplaceAllStringFunc(text, func(pos string) string {
			m := positionPattern.FindStringSubmatch(pos)
			if line, _ := strconv.Atoi(m[2]); m[1] == file && changed[line] {
				return m[1] + ":" + m[2] + ":*"
			}
			return pos
		})
	}
	return blur(want) == blur(got)
}

// changedLines returns the numbers (from 1) of the lines that differ between a source and
// its printed form.
func changedLines(src, printed string) map[int]bool {
	a, b := splitLines(src), strings.Split(printed, "\n")
	changed := map[int]bool{}
	for i := range max(len(a), len(b)) {
		if i >= len(a) || i >= len(b) || a[i] != b[i] {
			changed[i+1] = true
		}
	}
	return changed
}

// splitLines splits s at every JavaScript line terminator.
func splitLines(s string) []string {
	var lines []string
	b := []byte(s)
	start := 0
	for i := 0; i < len(b); {
		if n := lineTerminatorLen(b[i:]); n > 0 {
			lines = append(lines, s[start:i])
			i += n
			start = i
			continue
		}
		i++
	}
	return append(lines, s[start:])
}

// jsString quotes s as a JavaScript string literal (JSON escapes U+2028 and U+2029 too).
func jsString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}
