// Command tsgen generates gen/ts/wirev1 (TypeScript types, strict codecs and the lane table of
// the V1 wire protocol) from schemas/jsonschema/v1. Run it from the repository root
// (tools/generate.sh does, with no arguments).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/codemodehq/codemode/generators/tsgen"
)

func main() {
	var opts tsgen.Options
	flag.StringVar(&opts.SchemaDir, "schemas", "schemas/jsonschema/v1", "directory of *.schema.json documents")
	flag.StringVar(&opts.OutDir, "out", "gen/ts/wirev1", "output TypeScript module directory")
	flag.StringVar(&opts.RuntimeModule, "runtime", "pkg/serdejson/ts/serdejson.ts", "the runtime module the generated modules import")
	flag.StringVar(&opts.Protocol, "protocol", "V1", "the wire's name in generated documentation")
	flag.StringVar(&opts.SchemaPath, "schema-path", "schemas/jsonschema/v1", "the schema directory named in generated documentation")
	flag.Parse()
	if err := tsgen.Generate(opts); err != nil {
		fmt.Fprintln(os.Stderr, "tsgen:", err)
		os.Exit(1)
	}
}
