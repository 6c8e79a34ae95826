// The fixture conformance every generated wire package passes, shared by v1_fixtures.test.ts and
// execserver_fixtures.test.ts: the fixture tree of fixtures/NAME (written by generators/wiregen
// from schemas/jsonschema/NAME and passed by the Go codec) against the generated TypeScript codecs.
// Every valid fixture decodes and re-encodes byte for byte, every non-canonical one re-encodes to
// its canonical form, every invalid one is rejected with the expected text, and the tree holds
// exactly the fixtures the schemas define.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseJSON, stringifyJSON, WireDecodeError, type JsonValue } from "../../pkg/serdejson/ts/serdejson.js";
import { repoRoot } from "./repo.js";

/** A generated codec, as every gen/ts package's wireCodecs holds them. */
export interface Codec {
  decode(json: unknown): unknown;
  unmarshal(text: string): unknown;
  encode(v: unknown): JsonValue;
  marshal(v: unknown): string;
}

/** What a wire package's own tests (v1's lane tests) need of its fixture tree. */
export interface FixtureTree {
  codecFor(name: string): Codec;
  readText(...parts: string[]): string;
  listFixtures(dir: string): string[];
  schemasDir: string;
}

/**
 * Registers the fixture tests of the wire package NAME (fixtures/NAME, schemas/jsonschema/NAME)
 * whose generated codecs are codecs, and returns the tree for further tests.
 */
export function fixtureSuite(name: string, codecs: Readonly<Record<string, Codec>>): FixtureTree {
  const fixturesDir = join(repoRoot(), "fixtures", name);
  const schemasDir = join(repoRoot(), "schemas", "jsonschema", name);
  const wrapperDirs = new Set(["invalid", "noncanonical"]);

  function codecFor(name: string): Codec {
    assert.ok(Object.hasOwn(codecs, name), `${name} is not a generated wire type`);
    return codecs[name]!;
  }

  function readText(...parts: string[]): string {
    return readFileSync(join(fixturesDir, ...parts), "utf8").replace(/\n$/, "");
  }

  // A wrapper (invalid/, noncanonical/) is read with the strict parser so that lexemes such as
  // `1.0` in its "json" member survive.
  interface Wrapper {
    type: string;
    json?: JsonValue;
    raw?: string;
    canonical?: JsonValue;
    error?: string;
  }

  function readWrapper(dir: string, file: string): Wrapper {
    return parseJSON(readText(dir, file)) as unknown as Wrapper;
  }

  // FixtureDefs is the part of a schema document the fixture generator reads.
  interface FixtureDefs {
    examples?: unknown[];
    "x-noncanonical-examples"?: unknown[];
    "x-invalid-examples"?: unknown[];
  }

  function listFixtures(dir: string): string[] {
    return readdirSync(join(fixturesDir, dir))
      .filter((f) => f.endsWith(".json"))
      .sort();
  }

  const typeDirs = readdirSync(fixturesDir)
    .filter((d) => !wrapperDirs.has(d))
    .sort();

  test("every fixture directory names a generated wire type", () => {
    assert.ok(typeDirs.length > 0, `no fixtures under fixtures/${name}`);
    for (const dir of typeDirs) {
      codecFor(dir);
    }
  });

  // The fixture tree must hold exactly the fixtures the schemas define (their examples,
  // x-noncanonical-examples and x-invalid-examples), so that an empty, partial or misplaced tree
  // fails here instead of registering no per-file tests below.
  test("the fixture tree holds every fixture the schemas define", () => {
    let noncanonical = 0;
    let invalid = 0;
    for (const f of readdirSync(schemasDir).filter((f) => f.endsWith(".schema.json"))) {
      const title = f.replace(/\.schema\.json$/, "");
      const doc = JSON.parse(readFileSync(join(schemasDir, f), "utf8")) as FixtureDefs;
      const examples = doc.examples?.length ?? 0;
      const found = examples === 0 ? 0 : listFixtures(title).length;
      assert.equal(found, examples, `${title}: ${found} valid fixtures, the schema has ${examples} examples`);
      noncanonical += doc["x-noncanonical-examples"]?.length ?? 0;
      invalid += doc["x-invalid-examples"]?.length ?? 0;
    }
    assert.ok(typeDirs.length > 0 && invalid > 0, "the schemas define no fixtures: wrong directory?");
    assert.equal(listFixtures("noncanonical").length, noncanonical);
    assert.equal(listFixtures("invalid").length, invalid);
  });

  test("every schema document has a generated codec", () => {
    const titles = readdirSync(schemasDir)
      .filter((f) => f.endsWith(".schema.json"))
      .map((f) => f.replace(/\.schema\.json$/, ""))
      .sort();
    assert.deepEqual(Object.keys(codecs).sort(), titles);
  });

  for (const dir of typeDirs) {
    for (const file of listFixtures(dir)) {
      test(`${dir}/${file} decodes and re-encodes byte for byte`, () => {
        const codec = codecFor(dir);
        const text = readText(dir, file);
        const decoded = codec.unmarshal(text);
        assert.equal(codec.marshal(decoded), text);
        // The same through the JsonValue API, and from JSON.parse's output where JSON.parse is
        // exact (it rounds u64 values such as 18446744073709551615).
        const tree = parseJSON(text);
        assert.deepEqual(codec.encode(codec.decode(tree)), tree);
        if (JSON.stringify(JSON.parse(text)) === text) {
          assert.equal(codec.marshal(codec.decode(JSON.parse(text))), text);
        }
      });
    }
  }

  for (const file of listFixtures("noncanonical")) {
    test(`noncanonical/${file} re-encodes canonically`, () => {
      const w = readWrapper("noncanonical", file);
      const codec = codecFor(w.type);
      const want = stringifyJSON(w.canonical!);
      assert.equal(codec.marshal(codec.decode(w.json)), want);
      assert.equal(codec.marshal(codec.unmarshal(stringifyJSON(w.json!))), want);
      // The canonical form is a fixed point.
      assert.equal(codec.marshal(codec.unmarshal(want)), want);
    });
  }

  for (const file of listFixtures("invalid")) {
    test(`invalid/${file} is rejected`, () => {
      const w = readWrapper("invalid", file);
      const codec = codecFor(w.type);
      const expected = w.error!;
      const rejects = (decode: () => unknown) =>
        assert.throws(decode, (err: unknown) => {
          assert.ok(err instanceof WireDecodeError, `not a WireDecodeError: ${String(err)}`);
          assert.ok(err.message.includes(expected), `error ${JSON.stringify(err.message)} lacks ${JSON.stringify(expected)}`);
          return true;
        });
      if (w.raw !== undefined) {
        rejects(() => codec.unmarshal(w.raw!));
      } else {
        rejects(() => codec.unmarshal(stringifyJSON(w.json!)));
        rejects(() => codec.decode(w.json));
      }
    });
  }
  return { codecFor, readText, listFixtures, schemasDir };
}
