// The exec-server fixture tree (fixtures/execserver, written by generators/wiregen from
// schemas/jsonschema/execserver and passed by the Go codec of gen/go/execserverwire) against the
// generated TypeScript codecs of gen/ts/execserver: the same conformance as v1_fixtures.test.ts
// (compat/ts/fixture_suite.ts; the exec-server wire has no lanes).
import { wireCodecs } from "../../gen/ts/execserver/index.js";
import { fixtureSuite, type Codec } from "./fixture_suite.js";

fixtureSuite("execserver", wireCodecs as unknown as Record<string, Codec>);
