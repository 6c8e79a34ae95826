// Package v1client is the V1 client: codemode.SessionProviders whose sessions run on a remote
// code-mode host (Codex's own, or v1host) reached over a spawned host process's stdio, one
// WebSocket, or a dual WebSocket connection (docs/protocol/v1.md). It keeps the client rules a host
// is written against (docs/protocol/v1.md#client-rules): waits on one cell are serialized behind a
// cancelled wait until the host retired it, an execute whose caller gave up is terminated once
// admitted, delegate requests for a cell whose execute is still being answered are deferred (at
// most 1,024), at most 1,024 delegate calls run at once, and every protocol violation or missed
// deadline fails the whole connection, closing each live cell exactly once. A process host that
// died is restarted for the next session, whose cells carry the next epoch's IDs ("g2:1",
// docs/protocol/grpc.md#cell-ids-across-host-restarts).
//
// It accepts both Codex wire generations: runtime responses with or without
// code_mode_host_duration_ns (docs/protocol/v1.md#host-duration-g2).
//
// Files: provider.go (providers, reconnect epochs), process.go and websocket.go (connectors),
// handshake.go, conn.go (one connection: read loop, failure), requests.go (request IDs,
// deadlines, cancellation), session.go (the Session operations), cellids.go (public and wire
// cell IDs), delegates.go (calls from the host to the delegate).
package v1client
