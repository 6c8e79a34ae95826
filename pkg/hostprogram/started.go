package hostprogram

import (
	"runtime/debug"
	"strings"

	"github.com/codemodehq/codemode/pkg/internal/buildinfo"
	"github.com/codemodehq/codemode/pkg/v1/v1host"
)

// StartedMessage is the message of the one info line a host logs when its listeners are bound
// and it starts serving. Tools that check which host Codex runs (codemode codex doctor) look for
// it and its keys: program, version, revision, go, listen and, with a V1 listener, generation.
const StartedMessage = "code-mode host started"

// defaultProgram names the program in the started line when Program.Name is empty.
const defaultProgram = "codemode-host"

// logStarted logs StartedMessage with the build's identity and every listener. listen is one
// value, not one key per listener: a repeated key is lost in JSON logs (decoders keep the last
// one), so the listeners are joined in --listen order with ", ", each written as --listen spells
// it, followed by its bound URL in parentheses when it has one:
//
//	listen=grpc+stdio://
//	listen="ws://127.0.0.1:0 (ws://127.0.0.1:41873), grpc://127.0.0.1:0 (http://127.0.0.1:40127)"
func (p *Program) logStarted() {
	info := buildinfo.Read()
	revision := info.ShortRevision()
	if revision == "" {
		revision = "unknown"
	}
	attrs := []any{
		"program", p.programName(),
		"version", info.VersionOrUnknown(),
		"revision", revision,
		"go", info.GoVersion,
		"listen", p.listenSummary(),
	}
	if p.v1 != nil {
		attrs = append(attrs, "generation", p.generationName())
	}
	if p.budget != nil {
		attrs = append(attrs, "memory_budget", p.cfg.MemoryBudget, "go_memory_limit", debug.SetMemoryLimit(-1))
	}
	p.log.Info(StartedMessage, attrs...)
}

// programName is Name, or codemode-host.
func (p *Program) programName() string {
	if p.Name == "" {
		return defaultProgram
	}
	return p.Name
}

// listenSummary is the listen value of the started line (see logStarted).
func (p *Program) listenSummary() string {
	parts := make([]string, 0, len(p.bound))
	for _, b := range p.bound {
		part := b.Listen.String()
		if b.URL != "" {
			part += " (" + b.URL + ")"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, ", ")
}

// generationName is the V1 wire generation the V1 listeners speak.
func (p *Program) generationName() string {
	if p.cfg.Generation == "" {
		return v1host.DefaultGenerationName
	}
	return p.cfg.Generation
}

// VersionLine is the --version line of program (codemode-host, codemode): its module version,
// VCS revision and time, Go version and platform, from the binary's build information. The
// build information is read in pkg/internal/buildinfo, which the services cannot import.
func VersionLine(program string) string { return buildinfo.Read().Line(program) }
