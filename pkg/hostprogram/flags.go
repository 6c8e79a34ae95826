package hostprogram

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/codemodehq/codemode/pkg/grpc/grpchost"
	"github.com/codemodehq/codemode/pkg/internal/membudget"
	"github.com/codemodehq/codemode/pkg/jsruntime"
	"github.com/codemodehq/codemode/pkg/v1/v1host"
)

// Flags are the parsed command line of the host.
type Flags struct {
	Config
	// LogLevel and LogFormat configure the log on stderr.
	LogLevel, LogFormat string
	// Version asks for the version line instead of a host (--version).
	Version bool
	// poolSize is --pool-size as given (0 keeps no runtime ready).
	poolSize int
	// memoryBudget is --memory-budget as given ("" for the default).
	memoryBudget string
	// unobservedCellTimeout is --unobserved-cell-timeout as given (0: never).
	unobservedCellTimeout time.Duration
}

// originsFlag collects repeated --allow-origin values.
type originsFlag struct{ origins *[]string }

// String implements flag.Value.
func (f originsFlag) String() string {
	if f.origins == nil {
		return ""
	}
	return strings.Join(*f.origins, ",")
}

// Set implements flag.Value.
func (f originsFlag) Set(s string) error {
	*f.origins = append(*f.origins, s)
	return nil
}

// FlagSet returns the host's flags, parsed into f; its output is discarded (the help text is
// Help's).
func (f *Flags) FlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(listenFlag{&f.Listens}, "listen", "")
	fs.StringVar(&f.Generation, "generation", v1host.DefaultGenerationName, "")
	fs.Uint64Var(&f.MaxYieldTimeMs, "max-yield-ms", 0, "")
	fs.Uint64Var(&f.MaxHeapBytes, "max-heap-bytes", 0, "")
	fs.IntVar(&f.poolSize, "pool-size", jsruntime.DefaultPoolSize, "")
	fs.StringVar(&f.memoryBudget, "memory-budget", "", "")
	fs.StringVar(&f.Tools, "tools", "", "")
	fs.StringVar(&f.Token, "token", "", "")
	fs.Var(originsFlag{&f.AllowOrigins}, "allow-origin", "")
	fs.StringVar(&f.RouteID, "route-id", "", "")
	fs.IntVar(&f.MaxSessions, "max-sessions", 0, "")
	fs.DurationVar(&f.DrainTimeout, "drain-timeout", DefaultDrainTimeout, "")
	fs.DurationVar(&f.IdleTimeout, "idle-timeout", DefaultIdleTimeout, "")
	fs.DurationVar(&f.unobservedCellTimeout, "unobserved-cell-timeout", jsruntime.DefaultUnobservedCellTimeout, "")
	fs.IntVar(&f.MaxCellsPerSession, "max-cells-per-session", grpchost.DefaultMaxActiveCellsPerSession, "")
	fs.IntVar(&f.MaxConnections, "max-connections", DefaultMaxConnections, "")
	fs.Var(adminFlag{&f.AdminListen}, "admin-listen", "")
	fs.Var(traceExporterFlag{&f.OTelTraceExporter}, "otel-trace-exporter", "")
	fs.Var(traceListenFlag{&f.OTelTraceListen}, "otel-trace-listen", "")
	fs.IntVar(&f.MaxActiveCells, "max-active-cells", grpchost.DefaultMaxActiveCells, "")
	fs.IntVar(&f.MaxInFlightRequests, "max-in-flight-requests", grpchost.DefaultMaxInFlightRequests, "")
	fs.StringVar(&f.LogLevel, "log-level", "info", "")
	fs.StringVar(&f.LogFormat, "log-format", "text", "")
	fs.BoolVar(&f.Version, "version", false, "")
	return fs
}

// Finish completes the configuration after parsing: the token from the environment when
// --token was not given, the pool size, the logger on stderr.
func (f *Flags) Finish(getenv func(string) string, stderr io.Writer) error {
	if f.Token == "" {
		f.Token = getenv(TokenEnv)
	}
	switch {
	case f.poolSize < 0:
		return &UsageError{Err: fmt.Errorf("--pool-size must be ≥ 0, not %d", f.poolSize)}
	case f.poolSize == 0:
		f.PoolSize = -1 // jsruntime: keep none ready
	default:
		f.PoolSize = f.poolSize
	}
	if err := f.finishMemoryBudget(); err != nil {
		return err
	}
	if f.MaxSessions < 0 {
		return &UsageError{Err: fmt.Errorf("--max-sessions must be ≥ 0, not %d", f.MaxSessions)}
	}
	if f.DrainTimeout <= 0 {
		return &UsageError{Err: fmt.Errorf("--drain-timeout must be positive, not %s", f.DrainTimeout)}
	}
	if f.IdleTimeout <= 0 {
		return &UsageError{Err: fmt.Errorf("--idle-timeout must be positive, not %s", f.IdleTimeout)}
	}
	switch {
	case f.unobservedCellTimeout < 0:
		return &UsageError{Err: fmt.Errorf("--unobserved-cell-timeout must not be negative (0 keeps unobserved cells), not %s", f.unobservedCellTimeout)}
	case f.unobservedCellTimeout == 0:
		f.UnobservedCellTimeout = -1 // jsruntime: never
	default:
		f.UnobservedCellTimeout = f.unobservedCellTimeout
	}
	if f.MaxCellsPerSession <= 0 {
		return &UsageError{Err: fmt.Errorf("--max-cells-per-session must be positive, not %d", f.MaxCellsPerSession)}
	}
	if f.MaxConnections <= 0 {
		return &UsageError{Err: fmt.Errorf("--max-connections must be positive, not %d", f.MaxConnections)}
	}
	if f.MaxActiveCells <= 0 || f.MaxInFlightRequests <= 0 {
		return &UsageError{Err: fmt.Errorf("--max-active-cells and --max-in-flight-requests must be positive, not %d and %d", f.MaxActiveCells, f.MaxInFlightRequests)}
	}
	log, err := NewLogger(stderr, f.LogLevel, f.LogFormat)
	if err != nil {
		return &UsageError{Err: err}
	}
	f.Logger = log
	return nil
}

// finishMemoryBudget reads --memory-budget, or defaults it (defaultMemoryBudget).
func (f *Flags) finishMemoryBudget() error {
	n, err := MemoryBudgetBytes(f.memoryBudget)
	f.MemoryBudget = n
	return err
}

// MemoryBudgetBytes reads a --memory-budget value as every program of the project does
// (codemode-host, codemode host, codemode serve, codemode mcp): "" is the default (three
// quarters of the cgroup's memory limit, or DefaultMemoryBudget), otherwise a byte count of at
// least 64Mi. A wrong value is a *UsageError.
func MemoryBudgetBytes(flagValue string) (int64, error) {
	if flagValue == "" {
		return defaultMemoryBudget(), nil
	}
	n, err := membudget.ParseBytes(flagValue)
	if err != nil {
		return 0, &UsageError{Err: fmt.Errorf("--memory-budget: %v", err)}
	}
	if n < minMemoryBudget {
		return 0, &UsageError{Err: fmt.Errorf("--memory-budget must be at least %d bytes (64Mi), not %d", minMemoryBudget, n)}
	}
	return n, nil
}

// minMemoryBudget is the smallest --memory-budget: below it the Go runtime and the idle runtimes
// alone would take the headroom.
const minMemoryBudget = 64 << 20

// NewLogger returns a slog logger on w: level debug, info, warn or error; format text or json.
func NewLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, errors.New("--log-level must be debug, info, warn or error, not " + level)
	}
	opts := &slog.HandlerOptions{Level: l}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, errors.New("--log-format must be text or json, not " + format)
}
