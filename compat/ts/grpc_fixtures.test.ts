// The protojson fixtures of codex.code_mode.v1 (fixtures/grpc, written by generators/grpcfixtures
// with Go's protojson) must decode with protobuf-es and re-encode to the same JSON value, and
// survive a binary round trip: the TypeScript and Go stacks agree on the JSON mapping.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { equals, fromBinary, fromJson, toBinary, toJson } from "@bufbuild/protobuf";
import type { DescMessage, JsonValue } from "@bufbuild/protobuf";
import { file_codex_code_mode_v1_code_mode } from "../../gen/ts/pb/codex/code_mode/v1/code_mode_pb.js";
import { repoRoot } from "./repo.js";

const fixturesDir = join(repoRoot(), "fixtures", "grpc");
const messages = new Map<string, DescMessage>(
  file_codex_code_mode_v1_code_mode.messages.map((desc) => [desc.name, desc]),
);

test("every message of codex.code_mode.v1 has fixtures, and every fixture a message", () => {
  const dirs = readdirSync(fixturesDir).sort();
  assert.ok(messages.size > 0, "codex.code_mode.v1 declares no messages");
  assert.deepEqual(dirs, [...messages.keys()].sort());
  // generators/grpcfixtures writes a minimal and a full case for every message, so a tree with
  // empty directories cannot pass by registering no round-trip tests below.
  for (const dir of dirs) {
    const files = readdirSync(join(fixturesDir, dir));
    for (const required of ["minimal.json", "full.json"]) {
      assert.ok(files.includes(required), `${dir} has no ${required}`);
    }
  }
});

for (const dir of readdirSync(fixturesDir).sort()) {
  for (const file of readdirSync(join(fixturesDir, dir)).sort()) {
    test(`${dir}/${file} round-trips through protobuf-es`, () => {
      const schema = messages.get(dir);
      assert.ok(schema, `fixture directory ${dir} names no message of codex.code_mode.v1`);
      const json = JSON.parse(readFileSync(join(fixturesDir, dir, file), "utf8")) as JsonValue;

      const message = fromJson(schema, json);
      assert.deepEqual(toJson(schema, message), json);

      const fromWire = fromBinary(schema, toBinary(schema, message));
      assert.ok(equals(schema, message, fromWire), "binary round trip changed the message");
    });
  }
}
