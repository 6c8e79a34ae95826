// Package httpguard keeps web pages off the module's HTTP listeners. It is the one check every
// HTTP surface runs before anything else (the gRPC/Connect listener and its page, the V1
// WebSocket, the exec-server), in two parts:
//
//   - Host: a listener without a token answers only requests whose Host names the loopback
//     interface (localhost, 127.0.0.0/8, ::1). A page the user visits can make its own name
//     resolve to 127.0.0.1 (DNS rebinding) and then call the listener as its own origin; its
//     requests still carry its name in Host, and that is what gives it away. Browsers cannot
//     forge Host, and a page whose URL names a loopback address is served from this machine.
//   - Origin: a request a browser sends from another origin (its Origin header) is refused
//     unless that origin is allowed, or every browser origin is refused where no page has
//     business (the V1 WebSocket, the exec-server). The listener's own page, whose requests come
//     from the origin Host names, is same-origin.
//
// The standard library's CrossOriginProtection is not enough here: it trusts an Origin that
// matches Host, which a rebinding page's does, and lets safe methods through.
package httpguard

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
)

// Policy says what a guard refuses.
type Policy struct {
	// LoopbackHosts refuses a request whose Host does not name the loopback interface: for
	// listeners without a token (which the host program allows on loopback addresses only).
	LoopbackHosts bool
	// Origins are the browser origins allowed besides the listener's own, as browsers send them
	// ("http://localhost:5173"); "*" allows every origin.
	Origins []string
	// NoBrowsers refuses every request with an Origin header, the listener's own origin too:
	// for listeners no page may drive.
	NoBrowsers bool
	// Exempt, when set, names requests served whatever their Host and Origin: probes that
	// reveal nothing and run nothing (GET /healthz, /readyz).
	Exempt func(*http.Request) bool
}

// Refusal is why a guard refused a request; its text is what the client is told.
type Refusal struct {
	// Header names the header refused: "Host" or "Origin".
	Header string
	// Value is that header's value as received.
	Value string
	text  string
}

// Error implements error.
func (r *Refusal) Error() string { return r.text }

// Guard checks requests against a Policy. It holds no state past its configuration: one guard
// serves any number of goroutines.
type Guard struct {
	policy    Policy
	anyOrigin bool
}

// New returns a guard for p.
func New(p Policy) *Guard {
	return &Guard{policy: p, anyOrigin: slices.Contains(p.Origins, "*")}
}

// Check returns why r must not be served, or nil.
func (g *Guard) Check(r *http.Request) *Refusal {
	if g.policy.Exempt != nil && g.policy.Exempt(r) {
		return nil
	}
	if g.policy.LoopbackHosts && !LoopbackHost(r.Host) {
		return &Refusal{Header: "Host", Value: r.Host, text: fmt.Sprintf(
			"Host %q is not a loopback name: this listener has no token, so it answers only requests for localhost, 127.0.0.1 or [::1] (a page served under another name may be a DNS-rebinding attack); connect through one of those names, or give the host a token", r.Host)}
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil
	}
	if g.policy.NoBrowsers {
		return &Refusal{Header: "Origin", Value: origin, text: fmt.Sprintf(
			"browser origins are not allowed: a request from %s was refused; this listener is for programs, never for a web page", origin)}
	}
	if g.anyOrigin || slices.Contains(g.policy.Origins, origin) || sameOrigin(origin, r.Host) {
		return nil
	}
	return &Refusal{Header: "Origin", Value: origin, text: fmt.Sprintf(
		"Origin %s is not allowed: browser pages reach this host only from its own origin or from one given with --allow-origin", origin)}
}

// Handler serves next the requests Check lets through and answers the others with refuse (nil:
// WritePlain).
func (g *Guard) Handler(next http.Handler, refuse func(http.ResponseWriter, *http.Request, *Refusal)) http.Handler {
	if refuse == nil {
		refuse = WritePlain
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if refusal := g.Check(r); refusal != nil {
			refuse(w, r, refusal)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// WritePlain answers a refusal with 403 Forbidden and its text.
func WritePlain(w http.ResponseWriter, _ *http.Request, refusal *Refusal) {
	http.Error(w, refusal.Error(), http.StatusForbidden)
}

// LoopbackHost reports whether host (a Host header: name or address, with or without a port)
// names the loopback interface: "localhost" in any case, or an address in 127.0.0.0/8 or ::1.
// Any port is accepted: a proxy on this machine forwards its clients' Host, which names the
// proxy's port, and a page on another loopback port is another origin, which the Origin check
// refuses.
func LoopbackHost(host string) bool {
	name := host
	if h, port, err := net.SplitHostPort(host); err == nil {
		if !validPort(port) {
			return false
		}
		name = h
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		name = host[1 : len(host)-1]
	}
	if strings.EqualFold(name, "localhost") {
		return true
	}
	addr, err := netip.ParseAddr(name)
	return err == nil && addr.Zone() == "" && addr.Unmap().IsLoopback()
}

// validPort reports whether port is a decimal port number as a Host header spells it.
func validPort(port string) bool {
	if port == "" || len(port) > 5 {
		return false
	}
	for _, c := range port {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// sameOrigin reports whether origin is the origin of a page served under host: scheme http or
// https, and the same host and port (names compared without case, default ports spelled out
// or not).
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.User != nil {
		return false
	}
	return strings.EqualFold(withPort(u.Host, u.Scheme), withPort(host, u.Scheme))
}

// withPort returns host with its port, the scheme's default where it has none.
func withPort(host, scheme string) string {
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	if scheme == "https" {
		return net.JoinHostPort(strings.Trim(host, "[]"), "443")
	}
	return net.JoinHostPort(strings.Trim(host, "[]"), "80")
}
