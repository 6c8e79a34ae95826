// The page's tools check their own inputs: the host forwards a call's input as the script wrote it
// (hosts do not check inputs: docs/protocol/javascript.md#tools), and the tool's owner refuses
// what its input_schema does not admit, with the text codemode's tool owners use ("tool `x` input
// does not match its input_schema: at '/a': …"). The page's schemas are small; this covers the
// keywords they and a hand-written schema use (type, properties, required, additionalProperties,
// items, enum, const, minimum, maximum, minLength, maxLength) and admits whatever else a schema
// says.

import type { JsonValue } from "@codemode/sdk";

type Schema = { readonly [key: string]: JsonValue };

/** typeOf is the JSON Schema type of a value. */
function typeOf(v: JsonValue): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function admitsType(want: JsonValue, got: string): boolean {
  const types = Array.isArray(want) ? want : [want];
  return types.some((t) => t === got || (t === "number" && got === "integer"));
}

function pointer(path: readonly string[]): string {
  return "/" + path.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");
}

/** problems lists what v does not satisfy in schema, each at its JSON pointer. */
export function problems(schema: JsonValue, v: JsonValue, path: readonly string[] = []): string[] {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return [];
  const s = schema as Schema;
  const at = (message: string): string => `at '${pointer(path)}': ${message}`;
  const got = typeOf(v);
  if (s["type"] !== undefined && !admitsType(s["type"], got)) {
    return [at(`got ${got}, want ${Array.isArray(s["type"]) ? s["type"].join(" or ") : String(s["type"])}`)];
  }
  const out: string[] = [];
  if (Array.isArray(s["enum"]) && !s["enum"].some((e) => JSON.stringify(e) === JSON.stringify(v))) out.push(at("value must be one of the enum"));
  if (s["const"] !== undefined && JSON.stringify(s["const"]) !== JSON.stringify(v)) out.push(at(`value must be ${JSON.stringify(s["const"])}`));
  if (typeof v === "number") {
    if (typeof s["minimum"] === "number" && v < s["minimum"]) out.push(at(`must be >= ${s["minimum"]} but found ${v}`));
    if (typeof s["maximum"] === "number" && v > s["maximum"]) out.push(at(`must be <= ${s["maximum"]} but found ${v}`));
  }
  if (typeof v === "string") {
    const n = [...v].length;
    if (typeof s["minLength"] === "number" && n < s["minLength"]) out.push(at(`length must be >= ${s["minLength"]}, but got ${n}`));
    if (typeof s["maxLength"] === "number" && n > s["maxLength"]) out.push(at(`length must be <= ${s["maxLength"]}, but got ${n}`));
  }
  if (Array.isArray(v) && s["items"] !== undefined) {
    v.forEach((item, i) => out.push(...problems(s["items"] as JsonValue, item, [...path, String(i)])));
  }
  if (got === "object") {
    const o = v as { readonly [key: string]: JsonValue };
    const properties = (typeof s["properties"] === "object" && s["properties"] !== null ? s["properties"] : {}) as Schema;
    const missing = (Array.isArray(s["required"]) ? s["required"] : []).filter((k) => typeof k === "string" && !(k in o));
    if (missing.length > 0) out.push(at(`missing properties ${missing.map((k) => `'${String(k)}'`).join(", ")}`));
    for (const [k, value] of Object.entries(o)) {
      if (k in properties) out.push(...problems(properties[k]!, value, [...path, k]));
      else if (s["additionalProperties"] === false) out.push(at(`additional properties '${k}' not allowed`));
      else if (s["additionalProperties"] !== undefined) out.push(...problems(s["additionalProperties"], value, [...path, k]));
    }
  }
  return out;
}

/** checkInput throws the refusal of a function tool's input ({} when absent), if it has one. */
export function checkInput(tool: string, schema: JsonValue, input: JsonValue | undefined): void {
  const found = problems(schema, input === undefined ? {} : input);
  if (found.length > 0) throw new Error(`tool \`${tool}\` input does not match its input_schema: ${found.join("; ")}`);
}
