// The V1 fixture tree (fixtures/v1, written by generators/wiregen from the JSON Schemas and
// passed by the Go codec) against the generated TypeScript codecs of gen/ts/wirev1: every valid
// fixture decodes and re-encodes byte for byte, every non-canonical one re-encodes to its
// canonical form, every invalid one is rejected with the expected text, and laneOf agrees with
// the x-lane annotations of the schemas.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  laneOf,
  parseJSON,
  stringifyJSON,
  wireCodecs,
  WireDecodeError,
  type JsonValue,
  type LaneMessage,
  type WireCodec,
  type WireTypeName,
} from "../../gen/ts/wirev1/index.js";
import { repoRoot } from "./repo.js";

const fixturesDir = join(repoRoot(), "fixtures", "v1");
const schemasDir = join(repoRoot(), "schemas", "jsonschema", "v1");
const wrapperDirs = new Set(["invalid", "noncanonical"]);

function codecFor(name: string): WireCodec<unknown> {
  assert.ok(Object.hasOwn(wireCodecs, name), `${name} is not a generated wire type`);
  return wireCodecs[name as WireTypeName] as WireCodec<unknown>;
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
  assert.ok(typeDirs.length > 0, "no fixtures under fixtures/v1");
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
  assert.deepEqual(Object.keys(wireCodecs).sort(), titles);
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

// ---- lanes: laneOf against the schemas' own x-lane / x-lane-rules ----

interface SchemaDoc {
  "x-kind": string;
  "x-tag"?: string;
  $defs?: Record<string, VariantDef>;
}

interface VariantDef {
  properties: Record<string, { const?: string }>;
  "x-lane"?: string;
  "x-lane-rules"?: { match: { field: string; variant: string }[]; lane: string }[];
}

const schemaDocs = new Map<string, SchemaDoc>(
  readdirSync(schemasDir)
    .filter((f) => f.endsWith(".schema.json"))
    .map((f) => [f.replace(/\.schema\.json$/, ""), JSON.parse(readFileSync(join(schemasDir, f), "utf8")) as SchemaDoc]),
);

// holdsVariant tells whether value is the named variant of whichever union defines it.
function holdsVariant(value: unknown, variant: string): boolean {
  for (const doc of schemaDocs.values()) {
    const def = doc.$defs?.[variant];
    if (def === undefined) {
      continue;
    }
    if (typeof value !== "object" || value === null) {
      return false;
    }
    if (doc["x-kind"] === "internal-union") {
      const tag = doc["x-tag"]!;
      return (value as Record<string, unknown>)[tag] === def.properties[tag].const;
    }
    return Object.keys(def.properties).every((k) => Object.hasOwn(value, k));
  }
  throw new Error(`no schema defines variant ${variant}`);
}

// expectedLane interprets x-lane and x-lane-rules of the variant msg belongs to.
function expectedLane(union: string, msg: Record<string, unknown>): string {
  const doc = schemaDocs.get(union)!;
  const tag = doc["x-tag"]!;
  const def = Object.values(doc.$defs!).find((d) => d.properties[tag].const === msg[tag]);
  assert.ok(def, `${union} has no variant ${String(msg[tag])}`);
  for (const rule of def["x-lane-rules"] ?? []) {
    let cur: unknown = msg;
    const matches = rule.match.every((step) => {
      cur = (cur as Record<string, unknown>)[step.field];
      return holdsVariant(cur, step.variant);
    });
    if (matches) {
      return rule.lane;
    }
  }
  assert.ok(def["x-lane"], `${union} variant ${String(msg[tag])} has no x-lane`);
  return def["x-lane"];
}

const laneUnions = [...schemaDocs.entries()]
  .filter(([, doc]) => Object.values(doc.$defs ?? {}).some((d) => d["x-lane"] !== undefined))
  .map(([name]) => name)
  .sort();

test("the lane unions are ClientToHost and HostToClient", () => {
  assert.deepEqual(laneUnions, ["ClientToHost", "HostToClient"]);
});

for (const union of laneUnions) {
  test(`laneOf agrees with x-lane on every ${union} fixture, and every variant is covered`, () => {
    const codec = codecFor(union);
    const seen = new Set<unknown>();
    for (const file of listFixtures(union)) {
      const text = readText(union, file);
      const msg = codec.unmarshal(text) as LaneMessage;
      assert.equal(laneOf(msg), expectedLane(union, JSON.parse(text)), `${union}/${file}`);
      seen.add(msg.type);
    }
    const doc = schemaDocs.get(union)!;
    const tags = Object.values(doc.$defs!).map((d) => d.properties[doc["x-tag"]!].const);
    assert.deepEqual([...seen].sort(), tags.sort());
  });
}
