// Command wiregen generates gen/go/wirev1 and fixtures/v1 from schemas/jsonschema/v1. Run it from
// the repository root (tools/generate.sh does, with no arguments).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/codemodehq/codemode/generators/wiregen"
)

func main() {
	var opts wiregen.Options
	flag.StringVar(&opts.SchemaDir, "schemas", "schemas/jsonschema/v1", "directory of *.schema.json documents")
	flag.StringVar(&opts.OutDir, "out", "gen/go/wirev1", "output Go package directory")
	flag.StringVar(&opts.Package, "package", "wirev1", "output Go package name")
	flag.StringVar(&opts.FixturesDir, "fixtures", "fixtures/v1", "fixture tree to (re)write; empty to skip")
	flag.StringVar(&opts.Protocol, "protocol", "V1", "the wire's name in generated documentation")
	flag.BoolVar(&opts.FuzzAll, "fuzz-all", false, "one fuzz target over every type instead of one per type")
	flag.Parse()
	if err := wiregen.Generate(opts); err != nil {
		fmt.Fprintln(os.Stderr, "wiregen:", err)
		os.Exit(1)
	}
}
