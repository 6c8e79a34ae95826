// The V1 fixture tree (fixtures/v1, written by generators/wiregen from the JSON Schemas and
// passed by the Go codec) against the generated TypeScript codecs of gen/ts/wirev1: every valid
// fixture decodes and re-encodes byte for byte, every non-canonical one re-encodes to its
// canonical form, every invalid one is rejected with the expected text, and laneOf agrees with
// the x-lane annotations of the schemas (the fixture part is compat/ts/fixture_suite.ts, shared with
// the exec-server wire).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { laneOf, wireCodecs, type LaneMessage } from "../../gen/ts/wirev1/index.js";
import { fixtureSuite, type Codec } from "./fixture_suite.js";

const { codecFor, readText, listFixtures, schemasDir } = fixtureSuite("v1", wireCodecs as unknown as Record<string, Codec>);

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
  "x-generation"?: string;
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
    // The TypeScript codec speaks the baseline: variants of later generations have no fixture.
    const tags = Object.values(doc.$defs!)
      .filter((d) => d["x-generation"] === undefined)
      .map((d) => d.properties[doc["x-tag"]!].const);
    assert.deepEqual([...seen].sort(), tags.sort());
  });
}
