# codemode — every gate CI runs is a target here. `make check` is the test command.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
GO ?= go
export GOFLAGS := -buildvcs=false

.PHONY: all setup run generate check test test-go test-race test-ts lint drift compat fuzz bench clean

all: check

## setup: install what the project needs (node packages, pinned Go tools); idempotent.
setup:
	./tools/setup.sh

## run: set up and run the main job on the embedded default example.
run: setup
	$(GO) run ./tools/codemode run examples/hello.js

## generate: regenerate everything under gen/ and fixtures/ from schemas/.
generate: setup
	./tools/generate.sh

## check: the full gate CI runs: lint, drift, compat, Go (also under -race) and TS tests, brief fuzzing.
check: setup lint drift compat test test-race fuzz

test: test-go test-ts

test-go:
	$(GO) test -count=1 ./...

## test-race: the concurrent packages under the race detector.
test-race:
	$(GO) test -count=1 -race ./pkg/...

test-ts: setup
	./tools/test-ts.sh

lint: setup
	./tools/lint.sh

## drift: generated code must match the schemas exactly.
drift: generate
	@if [ -n "$$(git status --porcelain --untracked-files=all -- gen fixtures)" ]; then \
		echo "drift: 'make generate' changed generated files:"; git status --porcelain -- gen fixtures; \
		git --no-pager diff --stat -- gen fixtures; \
		echo "drift: commit the regenerated files, or fix the generator/schema that changed them"; exit 1; fi

## compat: breaking-change gates against the committed baselines in compat/.
compat: setup
	./tools/compat.sh

## fuzz: run every fuzz target briefly.
fuzz:
	./tools/fuzz.sh

## bench: benchmarks with their baselines; results go to docs/benchmarks.md by hand.
bench: setup
	./tools/bench.sh

clean:
	rm -rf .cache bin
