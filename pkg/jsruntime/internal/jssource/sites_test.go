package jssource

import "testing"

// The QuickJS positions below are those QuickJS reported for the code, and the V8 sites those
// Codex 0.171's host printed for it (the parity corpus has the cases).
func TestSitesAt(t *testing.T) {
	for _, c := range []struct {
		code       string
		line, col  int
		top        bool
		prop       string
		wantCol    int
		wantCallee string
		wantNew    bool
	}{
		{`throw new Error("boom")`, 1, 10, true, "", 7, "Error", true},
		{"\nthrow new Error(\"boom\")", 2, 11, true, "", 7, "Error", true},
		{`const o = {}; o.f()`, 1, 16, true, "", 17, "o.f", false},
		{"\nconst o = {}; o.f()", 2, 17, true, "", 17, "o.f", false},
		{`let v = 5; v()`, 1, 11, true, "", 12, "v", false},
		{`new 5`, 1, 4, true, "", 1, "5", true},
		{`const o={}; new o.x()`, 1, 16, true, "", 13, "o.x", true},
		{`const o = {}; o.a.b.c`, 1, 14, true, "b", 19, "", false},
		{`null.x`, 1, 1, true, "x", 6, "", false},
		{`undefined.foo()`, 1, 1, true, "foo", 11, "", false},
		{`tools.read_fle({})`, 1, 1, true, "", 7, "tools.read_fle", false},
		{`const o = {}; o.self = o; text(o)`, 1, 31, false, "", 27, "text", false},
		{`const o = {a: {}}; o.a.self = o; JSON.stringify([o])`, 1, 38, false, "", 39, "JSON.stringify", false},
		{`const o = {get x(){ throw new Error("g") }}; o.x`, 1, 45, false, "", 48, "", false},
		{`try { text({toJSON() { throw new Error("nope") }}) } catch (e) {}`, 1, 6, false, "", 7, "text", false},
		{`const a = 1; a = 2;`, 1, 13, true, "", 16, "", false},
		{`const f = 5; f` + "``", 1, 13, true, "", 14, "f", false},
		{"function f(){ throw new Error(\"x\") }\nf()", 2, 1, false, "", 1, "f", false},
		{`class A { m() { throw new Error("m") } }; new A().m()`, 1, 50, false, "", 51, "(intermediate value).m", false},
		{`const o = {a: () => ({})}; o.a().b()`, 1, 33, true, "", 34, "o.a(...).b", false},
		{`const o = {}; o["x"]()`, 1, 15, true, "", 21, "o.x", false},
		{`const a = [1]; a[0]()`, 1, 16, true, "", 20, "a[0]", false},
		{`(await tools.echo({})).foo()`, 1, 23, true, "", 24, "(intermediate value).foo", false},
	} {
		got, ok := NewSites(c.code).At(c.line, c.col, c.top, c.prop)
		if !ok || got.Column != c.wantCol || got.Callee != c.wantCallee || got.New != c.wantNew {
			t.Errorf("%q at %d:%d: got %+v, %v; want column %d callee %q new %v", c.code, c.line, c.col, got, ok, c.wantCol, c.wantCallee, c.wantNew)
		}
	}
}

func TestSitesFunctionName(t *testing.T) {
	for _, c := range []struct {
		code      string
		line, col int
		name      string
		want      string
	}{
		{`try { text({toJSON() { throw new Error("nope") }}) } catch (e) {}`, 1, 33, "toJSON", "Object.toJSON"},
		{`class A { m(){ throw new Error("m") } }; new A().m()`, 1, 25, "m", "A.m"},
		{`function f(){ throw new Error("x") }`, 1, 24, "f", "f"},
		{`const o = {get x(){ throw new Error("g") }}; o.x`, 1, 30, "get x", "get x"},
		{`const f = () => { if (1) { throw new Error("x") } }`, 1, 40, "f", "f"},
		{`class A { constructor() { throw new Error("c") } }; new A()`, 1, 36, "A", "new A"},
	} {
		if got := NewSites(c.code).FunctionName(c.line, c.col, c.name); got != c.want {
			t.Errorf("%q: got %q, want %q", c.code, got, c.want)
		}
	}
}

func TestSitesEnclosingConstruction(t *testing.T) {
	for _, c := range []struct {
		code      string
		line, col int
		message   string
		want      int
	}{
		{`const x = {a: 1}; throw new Error("failed: " + JSON.stringify(x))`, 1, 62, "failed: {\"a\":1}", 25},
		{"const x = {a: 1}; throw new Error(`failed: ${JSON.stringify(x)}`)", 1, 60, "failed: {\"a\":1}", 25},
		{`const e = new Error("outer", {cause: new Error("inner")}); throw e`, 1, 41, "outer", 11},
		{`throw new Error("boom")`, 1, 10, "boom", 7},
		{"try {\n  throw Error(\"not a function\")\n} catch (e) {}", 2, 9, "not a function", 9},
		{`const e = Reflect.apply(Error, null, ["x" + JSON.stringify(1)])`, 1, 50, "x1", 0},
	} {
		st, ok := NewSites(c.code).EnclosingConstruction(c.line, c.col, "Error", c.message)
		if c.want == 0 {
			if ok {
				t.Errorf("%q: got %+v, want no construction", c.code, st)
			}
			continue
		}
		if !ok || st.Column != c.want {
			t.Errorf("%q: got %+v %v, want column %d", c.code, st, ok, c.want)
		}
	}
}

func TestSitesIterable(t *testing.T) {
	// QuickJS reports these statements at the start of their line.
	for _, c := range []struct {
		code string
		text string
		col  int
	}{
		{`const [a] = {};`, "{}", 13},
		{`const o = {}; for (const x of o) {}`, "o", 31},
		{`const r = {items: 1}; for (const [k, v] of r.items) {}`, "r.items", 46},
	} {
		text, st, ok := NewSites(c.code).Iterable(1, 1)
		if !ok || text != c.text || st.Column != c.col {
			t.Errorf("%q: got %q %+v %v, want %q at %d", c.code, text, st, ok, c.text, c.col)
		}
	}
}
