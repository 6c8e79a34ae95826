// Package hostprogram is the code-mode host as a program: the Codex-compatible command line
// (--listen stdio | ws://IP:PORT | grpc://IP:PORT, repeatable), the in-process QuickJS runtime
// served over Protocol V1 (pkg/v1/v1host) and gRPC/Connect (pkg/grpc/grpchost), optional tools from a
// manifest (pkg/toolsources/toolprovider), bearer-token auth and CORS for the network listeners, and the
// lifecycle: every listener and the runtime are oklog/run actors, and SIGINT/SIGTERM drain the
// host within a bound (cells terminated, sessions closed, cell closures delivered) before it
// exits; a second signal exits at once.
//
// services/codemode-host is its main; `codemode host` and `codemode serve` (services/codemode) run
// the same code.
//
// Files: config.go (Config and its checks), listen.go (--listen values), flags.go (the command
// line), main.go (Main: flags to exit status), program.go (binding and the actor group),
// drain.go (shutdown), runtime.go (the runtime actor and the provider sessions see), tools.go
// (the manifest's tools offered to every session), http.go (auth and CORS), stdin_*.go (a
// standard input that closing unblocks).
package hostprogram
