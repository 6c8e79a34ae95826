// Command schemabreak fails when the JSON Schemas under -current break peers that speak the
// committed baseline under -baseline. tools/compat-jsonschema.sh runs it.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/codemodehq/codemode/compat/jsonschema/schemabreak"
)

func main() {
	baseline := flag.String("baseline", "compat/jsonschema/baseline", "baseline schema tree")
	current := flag.String("current", "schemas/jsonschema", "current schema tree")
	flag.Parse()
	findings, err := schemabreak.CompareDirs(*baseline, *current)
	if err != nil {
		fmt.Fprintln(os.Stderr, "schemabreak:", err)
		os.Exit(2)
	}
	for _, f := range findings {
		fmt.Println(f)
	}
	if len(findings) > 0 {
		fmt.Fprintf(os.Stderr, "schemabreak: %d breaking change(s) against %s\n", len(findings), *baseline)
		os.Exit(1)
	}
}
