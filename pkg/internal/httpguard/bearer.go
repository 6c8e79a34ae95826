package httpguard

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"
	"unicode"
)

// MinNetworkTokenLen is the shortest token a listener reachable from the network accepts: a
// token is the only thing between the network and a host that runs code, so it must not be
// guessable (16 characters of a random token are at least 64 bits even in hex).
const MinNetworkTokenLen = 16

// Authorized reports whether r carries "Authorization: Bearer TOKEN". The scheme is matched
// without case (RFC 9110 §11.1: auth schemes are case-insensitive); the token is compared in
// constant time (only its length can show).
func Authorized(r *http.Request, token string) bool {
	scheme, credentials, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimLeft(credentials, " ")), []byte(token)) == 1
}

// CheckToken refuses a token that cannot work or protects nothing: one with a space or control
// character (it would not survive an Authorization header intact), and, when network is true (a
// listener off loopback relies on it), one shorter than MinNetworkTokenLen.
func CheckToken(token string, network bool) error {
	if strings.IndexFunc(token, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return errors.New("the token must not contain spaces or control characters")
	}
	if network && len(token) < MinNetworkTokenLen {
		return errors.New("a token for a listener reachable from the network must be at least 16 characters (e.g. openssl rand -hex 32)")
	}
	return nil
}
