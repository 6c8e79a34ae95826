package grpcclient

import (
	"errors"
	"net/url"
	"strings"
)

// endpoint is a validated host address: an HTTP(S) origin, or a Unix socket.
type endpoint struct {
	// baseURL is what the connect transport prefixes to procedure paths. For a Unix socket it
	// is a placeholder origin; the dialer ignores its host.
	baseURL string
	// tls is set for https://.
	tls bool
	// socket is the path of a unix: endpoint.
	socket string
}

// Endpoint errors. None echoes the endpoint: it may hold credentials, and a URL parser's error
// would quote them.
var (
	errEndpointInvalid     = errors.New("invalid gRPC code-mode endpoint")
	errEndpointScheme      = errors.New("gRPC code-mode endpoint must use the http, https or unix scheme")
	errEndpointCredentials = errors.New("gRPC code-mode endpoint must not include credentials")
	errEndpointHost        = errors.New("gRPC code-mode endpoint must include a host")
	errEndpointPath        = errors.New("gRPC code-mode endpoint must not include a path, query or fragment")
	errEndpointSocket      = errors.New("gRPC code-mode endpoint must name a Unix socket path")
)

// parseEndpoint validates an endpoint by the rules of docs/protocol/grpc.md#endpoints: http://host:port
// and https://… (an origin: a gRPC method's path is fixed, so a path, query or fragment has no
// meaning there, and credentials in a URL would leak into logs and error texts), unix://path or
// unix:path.
func parseEndpoint(raw string) (endpoint, error) {
	if path, ok := strings.CutPrefix(raw, "unix://"); ok {
		return unixEndpoint(path)
	}
	if path, ok := strings.CutPrefix(raw, "unix:"); ok {
		return unixEndpoint(path)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return endpoint{}, errEndpointInvalid
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return endpoint{}, errEndpointScheme
	}
	if u.User != nil {
		return endpoint{}, errEndpointCredentials
	}
	if u.Host == "" || u.Hostname() == "" {
		return endpoint{}, errEndpointHost
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return endpoint{}, errEndpointPath
	}
	return endpoint{baseURL: u.Scheme + "://" + u.Host, tls: u.Scheme == "https"}, nil
}

func unixEndpoint(path string) (endpoint, error) {
	if path == "" {
		return endpoint{}, errEndpointSocket
	}
	return endpoint{baseURL: "http://localhost", socket: path}, nil
}
