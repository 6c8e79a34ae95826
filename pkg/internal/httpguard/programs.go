package httpguard

import "net/http"

// ReadyPath is the readiness probe of the listeners that serve programs only (the V1 WebSocket,
// the exec-server): GET answers 200 while the listener serves.
const ReadyPath = "/readyz"

// IsReadyProbe reports whether r is GET ReadyPath: a probe that reveals nothing and runs
// nothing, which a Policy may exempt.
func IsReadyProbe(r *http.Request) bool {
	return r.Method == http.MethodGet && r.URL.Path == ReadyPath
}

// ProgramsOnly is the front of a listener that serves programs, never a web page: the guard of p
// with NoBrowsers set (every request with an Origin header is refused with 403, WritePlain),
// then GET ReadyPath answered 200, then next for everything else. It is the one such front of
// the module (docs/adr/0069-one-of-each-mechanism.md); p adds the Host check and the probe's
// exemption where a listener wants them.
func ProgramsOnly(p Policy, next http.Handler) http.Handler {
	p.NoBrowsers = true
	return New(p).Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if IsReadyProbe(r) {
			w.WriteHeader(http.StatusOK)
			return
		}
		next.ServeHTTP(w, r)
	}), nil)
}
