# codemode — every gate CI runs is a target here. `make check` is the test command; a bare `make`
# lists the targets. Each target is documented by a "## target: what it does" line, which
# `make help` prints.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
GO ?= go
export GOFLAGS := -buildvcs=false
.DEFAULT_GOAL := help
# Phases print framed progress lines (tools/phase.sh); run in parallel they would interleave.
.NOTPARALLEL:

# Wall-clock start of this make run, for check's closing line.
START := $(shell date +%s)
PHASE := ./tools/phase.sh

.PHONY: help setup setup-system tools run generate check test test-short test-go test-race test-ts test-packages test-browser lint cross drift compat fuzz bench bench-compare gate-under-load dist clean codex-next diff-codex-exec diff-codex

## help: list the targets (what a bare `make` does).
help:
	@echo "usage: make <target>   (make check is the whole gate; CI runs it)"
	@awk '/^## [a-z-]+: / { name = $$2; sub(/:$$/, "", name); sub(/^## [a-z-]+: /, ""); printf "  %-16s %s\n", name, $$0 }' $(firstword $(MAKEFILE_LIST))

## setup: install what the project needs: node packages, Go modules (tools included); idempotent.
setup:
	@$(PHASE) setup "node packages (npm ci when package-lock.json changed), Go modules of go.mod and go.tools.mod" ./tools/setup.sh

## setup-system: install the system packages tests and benchmarks run (Debian's haproxy, chromium) with apt-get, as root or through passwordless sudo; idempotent.
setup-system:
	@$(PHASE) setup-system "Debian packages the tests run: haproxy (scale-out), chromium (browser test); nothing when present" ./tools/system-setup.sh

## tools: compile the pinned Go tools of go.tools.mod once (buf, staticcheck, protoc plugins).
tools: setup
	@$(PHASE) tools "pinned Go tools from go.tools.mod (compiled once, then cached)" ./tools/pinned-tools.sh

## run: set up and run examples/promise_all.js as a cell, with the real offline tools of examples/tools.json.
run: setup
	$(GO) run ./services/codemode run --tools examples/tools.json examples/promise_all.js

## generate: regenerate everything under gen/ and fixtures/ from schemas/.
generate: setup tools
	@$(PHASE) generate "gen/ and fixtures/ from schemas/ (buf, grpcfixtures, wiregen, tsgen, qjswasm) and the playground page (esbuild)" ./tools/generate.sh

## check: the whole gate CI runs: lint, the six platform builds, drift, compat, Go (also -race), TS and browser tests, brief fuzzing.
check: setup setup-system tools lint cross drift compat test test-packages test-browser test-race fuzz
	@took=$$(( $$(date +%s) - $(START) )); printf '==> check: every phase passed in %dm%02ds\n' $$((took / 60)) $$((took % 60))

## bench-compare: this tree against REV (make bench-compare REV=abc123): cell start and tool round trip in process, over V1 and gRPC, both trees' test binaries alternately.
bench-compare:
	COUNT=$(or $(COUNT),10) ./tools/bench-compare.sh $(REV)

## gate-under-load: .ci/run on fresh clones of HEAD, 5 times in a row, while busy loops saturate every core (RUNS=, BUSY= to change).
gate-under-load:
	./tools/gate-under-load.sh $(or $(RUNS),5) $(or $(BUSY),$(shell nproc))

## test: the Go and TypeScript tests.
test: test-go test-ts

## test-short: the quick Go run (-short): no other implementation or outside service (Codex, node, buf curl, HAProxy), no long soaks.
test-short:
	@$(PHASE) test-short "go test -short ./... (tests that need Codex, node, buf curl or HAProxy skip)" $(GO) test -short -count=1 ./...

## test-go: go test ./... (includes pkg/layering_test.go and the scale-out tests behind HAProxy; make setup-system installs it).
test-go:
	@$(PHASE) test-go "go test ./..." $(GO) test -count=1 ./...

## test-race: the pkg tests again under the race detector.
test-race:
	@$(PHASE) test-race "go test -race ./pkg/..." $(GO) test -count=1 -race ./pkg/...

## test-ts: TypeScript compat tests (tsc, node --test); quiet unless a test fails, VERBOSE=1 for all.
test-ts: setup
	@$(PHASE) test-ts "tsc, node --test compat/ts and the TypeScript SDK against a Go host (TAP printed only on failure)" ./tools/test-ts.sh

## test-packages: the npm packages (host, TypeScript SDK) installed from their npm pack tarballs outside the repository, each running its README example.
test-packages: setup
	@$(PHASE) test-packages "npm pack the host (tools/npm-pack.sh) and the SDK, install both in a temporary directory, run their README examples" ./tools/test-packages.sh

## test-browser: the playground in headless Chromium (make setup-system installs it) against the host binary.
test-browser: setup
	@$(PHASE) test-browser "the playground page served by codemode-host, driven in headless Chromium (playwright-core)" ./tools/test-browser.sh

## lint: gofmt, go vet, staticcheck, buf lint, buf format.
lint: setup tools
	@$(PHASE) lint "gofmt, go vet, staticcheck, buf lint, buf format" ./tools/lint.sh

## cross: build codemode-host and codemode for linux, darwin and windows on amd64 and arm64 (into a temporary directory).
cross:
	@$(PHASE) cross "codemode-host and codemode for {linux,darwin,windows}/{amd64,arm64}, CGO_ENABLED=0 (tools/dist.sh --cross)" ./tools/dist.sh --cross

## dist: release binaries of both programs for the six platforms in .cache/dist/, with SHA256SUMS (docs/install.md).
dist:
	./tools/dist.sh

## drift: regenerate, then fail if gen/ or fixtures/ changed.
drift: generate
	@$(PHASE) drift "gen/ and fixtures/ must equal what the schemas generate" ./tools/drift.sh

## compat: breaking-change gates against the committed baselines in compat/.
compat: setup tools
	@$(PHASE) compat "buf breaking and JSON Schema breaking against compat/ baselines" ./tools/compat.sh

## fuzz: run every fuzz target briefly (100000 executions each; FUZZTIME=30s for longer).
fuzz:
	@$(PHASE) fuzz "every fuzz target, one at a time" ./tools/fuzz.sh

## bench: benchmarks with their node:vm baseline; paste the table into docs/benchmarks.md.
bench: setup setup-system
	./tools/bench.sh

## codex-next: run the real-Codex suites with the pinned and the newest @openai/codex; report changes.
## diff-codex: the runtime differential against Codex's own code-mode host: every case's transcripts and the tally.
diff-codex: setup
	go test -count=1 -run 'TestRuntimeParityWithCodexHost' -v ./services/codemode-host -args -parity-print

## diff-codex-exec: the exec-server differential against Codex's own: every case's transcripts and the differences table.
diff-codex-exec: setup
	go test -count=1 -run 'TestExecServerDifferential' -v ./pkg/execserver/execserver -args -print-exec-diff

codex-next: setup
	./tools/codex-next.sh

## clean: remove .cache (generated TS test output, tool stamp) and bin.
clean:
	rm -rf .cache bin
