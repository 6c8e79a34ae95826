package v1client

// HostPID returns the process ID of p's current host process, 0 if there is none; tests kill
// it to simulate a host that dies.
func HostPID(p *Provider) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn == nil {
		return 0
	}
	return p.conn.pid
}

// DisplayPath is displayPath, for the tests of Codex's spawn error texts.
var DisplayPath = displayPath
