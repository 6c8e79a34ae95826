// Command qjswasm writes gen/go/qjswasm: the pinned qjs module's qjs.wasm transformed for codemode
// (see generators/qjswasm). tools/generate.sh runs it with the module's directory and version,
// which `go list -m` reports from go.mod.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/codemodehq/codemode/generators/qjswasm"
)

func main() {
	opts := qjswasm.Options{StackBytes: qjswasm.DefaultStackBytes}
	flag.StringVar(&opts.Source, "source", "", "path of the qjs module's qjs.wasm")
	flag.StringVar(&opts.SourceVersion, "version", "", "version of the qjs module")
	flag.StringVar(&opts.OutDir, "out", "gen/go/qjswasm", "output Go package directory")
	flag.Parse()
	if opts.Source == "" || opts.SourceVersion == "" {
		fmt.Fprintln(os.Stderr, "qjswasm: -source and -version are required")
		os.Exit(2)
	}
	if err := qjswasm.Generate(opts); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
