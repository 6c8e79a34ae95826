#!/usr/bin/env bash
# JSON Schema breaking-change gate: schemas/jsonschema against compat/jsonschema/baseline.
#   tools/compat-jsonschema.sh                    fail on any breaking change
#   tools/compat-jsonschema.sh --update-baseline  accept the current schemas as the new baseline
set -euo pipefail
cd "$(dirname "$0")/.."
baseline=compat/jsonschema/baseline
if [[ "${1:-}" == "--update-baseline" ]]; then
	rm -rf "$baseline"
	mkdir -p "$baseline"
	cp -R schemas/jsonschema/v1 schemas/jsonschema/execserver "$baseline/"
	echo "compat-jsonschema: baseline updated from schemas/jsonschema"
	exit 0
fi
go run ./compat/jsonschema/cmd/schemabreak -baseline "$baseline" -current schemas/jsonschema
echo "compat-jsonschema: no breaking changes against $baseline"
