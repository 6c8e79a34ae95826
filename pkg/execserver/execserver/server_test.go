package execserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	wire "github.com/codemodehq/codemode/gen/go/execserverwire"
	"github.com/codemodehq/codemode/pkg/execserver/execrpc"
	"github.com/codemodehq/codemode/pkg/internal/broadcast"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// hangGuard bounds every wait of these tests; nothing waits for it to pass.
const hangGuard = 5 * time.Minute

// client is the test's end of a connection to an in-process server over real pipes: it records
// notifications in arrival order.
type client struct {
	t    *testing.T
	peer *execrpc.Peer
	mu   sync.Mutex
	got  []notification
	more broadcast.Signal
}

type notification struct {
	method string
	params json.RawMessage
}

func (c *client) Concurrent(string) bool { return false }
func (c *client) HandleRequest(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return nil, execrpc.Errorf(execrpc.CodeMethodNotFound, "none")
}
func (c *client) HandleNotification(_ context.Context, method string, params json.RawMessage) {
	c.mu.Lock()
	c.got = append(c.got, notification{method, params})
	c.more.Broadcast()
	c.mu.Unlock()
}

// connect serves a session of srv over two os.Pipe pairs and returns its client end; the
// session ends with the test.
func connect(t *testing.T, srv *Server) *client {
	t.Helper()
	toServerR, toServerW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	toClientR, toClientW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- srv.ServeConn(ctx, execrpc.NewStreamConn(toServerR, toClientW, closers{toServerR, toClientW}))
	}()
	c := &client{t: t}
	c.peer = execrpc.NewPeer(execrpc.NewStreamConn(toClientR, toServerW, closers{toClientR, toServerW}), c, nil)
	ran := make(chan error, 1)
	go func() { ran <- c.peer.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		for _, ch := range []chan error{served, ran} {
			select {
			case <-ch:
			case <-time.After(hangGuard):
				t.Error("connection did not end")
			}
		}
	})
	return c
}

type closers []interface{ Close() error }

func (cs closers) Close() error {
	for _, c := range cs {
		_ = c.Close()
	}
	return nil
}

func (c *client) call(method string, params string) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	var raw json.RawMessage
	if params != "" {
		raw = json.RawMessage(params)
	}
	return c.peer.Call(ctx, method, raw)
}

func (c *client) mustCall(method, params string) string {
	c.t.Helper()
	r, err := c.call(method, params)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, params, err)
	}
	return string(r)
}

func (c *client) initialize() {
	c.mustCall("initialize", `{"clientName":"test"}`)
	if err := c.peer.Notify(context.Background(), "initialized", nil); err != nil {
		c.t.Fatal(err)
	}
}

// waitFor waits until a notification satisfies ok and returns all received so far.
func (c *client) waitFor(ok func(notification) bool) []notification {
	c.t.Helper()
	guard := time.After(hangGuard)
	for {
		c.mu.Lock()
		got, more := append([]notification(nil), c.got...), c.more.Changed()
		c.mu.Unlock()
		for _, n := range got {
			if ok(n) {
				return got
			}
		}
		select {
		case <-more:
		case <-guard:
			c.t.Fatalf("no such notification; got %v", got)
		}
	}
}

func closedNotification(id string) func(notification) bool {
	return func(n notification) bool {
		return n.method == "process/closed" && strings.Contains(string(n.params), `"processId":"`+id+`"`)
	}
}

func newServer(t *testing.T, root string) *Server {
	t.Helper()
	srv, err := New(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

func uri(p string) string { return string(PathToURI(p)) }

// The handshake's order (docs/protocol/exec-server.md#transport), with the texts a client gets
// from Codex 0.171's exec-server, so it handles both servers alike: every method but
// initialize is refused before initialize, and before the initialized notification after it;
// initialize is answered once.
func TestRequestsBeforeTheHandshakeAreRefused(t *testing.T) {
	c := connect(t, newServer(t, ""))
	wantError(t, c, "environment/status", "", -32600, "client must call initialize before using environment status methods")
	wantError(t, c, "environment/info", "", -32600, "client must call initialize before using environment info methods")
	wantError(t, c, "fs/readFile", `{"path":"file:///etc/hostname"}`, -32600, "client must call initialize before using filesystem methods")
	wantError(t, c, "bogus/x", "", -32601, "exec-server stub does not implement `bogus/x` yet")
	wantError(t, c, "initialize", "", -32602, "invalid type: null, expected struct InitializeParams")
	c.mustCall("initialize", `{"clientName":"test"}`)
	wantError(t, c, "process/read", `{"processId":"p"}`, -32600, "client must send initialized before using exec methods")
	wantError(t, c, "fs/readFile", `{"path":"/etc/hostname"}`, -32602, "invalid URI: relative URL without a base")
	wantError(t, c, "initialize", `{"clientName":"test"}`, -32600, "initialize may only be sent once per connection")
	if err := c.peer.Notify(context.Background(), "initialized", nil); err != nil {
		t.Fatal(err)
	}
	if got := c.mustCall("environment/status", ""); got != `{"status":"ready"}` {
		t.Errorf("status %s", got)
	}
	wantError(t, c, "environment/status", `{"x":1}`, -32602, "invalid type: map, expected unit")
	wantError(t, c, "fs/walk", `{}`, -32601, "exec-server stub does not implement `fs/walk` yet")
	wantError(t, c, "process/start", `{"processId":"p"}`, -32602, "missing field `argv`")
	wantError(t, c, "process/read", `{"processId":"p","maxBytes":1.5}`, -32602, "invalid number")
	wantError(t, c, "process/start", `{"processId":"p","argv":["x",1],"cwd":"file:///tmp","env":{},"tty":false}`, -32602, "invalid type: number, expected a string")
	wantError(t, c, "process/start", `{"processId":"p","argv":["x"],"cwd":"file:///tmp","env":[],"tty":false}`, -32602, "invalid type: sequence, expected a map")
}

// wantError calls method and requires Codex's error code and text.
func wantError(t *testing.T, c *client, method, params string, code int64, text string) {
	t.Helper()
	_, err := c.call(method, params)
	if e, ok := err.(*execrpc.Error); !ok || e.Code != code || e.Message != text {
		t.Errorf("%s %s: %v, want %q (%d)", method, params, err, text, code)
	}
}

func TestEnvironmentInfoAdvertisesNoCapabilities(t *testing.T) {
	c := connect(t, newServer(t, ""))
	init, err := wire.DecodeInitializeResponse([]byte(c.mustCall("initialize", `{"clientName":"test"}`)))
	if err != nil || init.EnvironmentInfo == nil {
		t.Fatalf("initialize carries no environmentInfo: %+v, %v", init, err)
	}
	if err := c.peer.Notify(context.Background(), "initialized", nil); err != nil {
		t.Fatal(err)
	}
	info, err := wire.DecodeEnvironmentInfo([]byte(c.mustCall("environment/info", "")))
	if err != nil {
		t.Fatal(err)
	}
	if info.Capabilities == nil || *info.Capabilities != (wire.EnvironmentCapabilities{}) {
		t.Errorf("capabilities %+v", info.Capabilities)
	}
	if info.ExecutorVersion != "0.0.0" || info.Shell.Path == "" {
		t.Errorf("%+v", info)
	}
	if info.ProviderId == nil || !strings.HasPrefix(*info.ProviderId, "sha256:") || len(*info.ProviderId) != len("sha256:")+64 || *info.ProviderId != *init.EnvironmentInfo.ProviderId {
		t.Errorf("providerId %v", info.ProviderId)
	}
	if info.PrependPathDirs == nil || len(info.PrependPathDirs) != 0 {
		t.Errorf("prependPathDirs %v", info.PrependPathDirs)
	}
}

// Codex reports the temporary directory as tempDir and an empty temporaryDirectories.
func Test_local_environment_info_reads_platform_temporary_directories(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	info := LocalEnvironmentInfo()
	if info.TempDir == nil || string(*info.TempDir) != uri(dir) || info.TemporaryDirectories == nil || len(info.TemporaryDirectories) != 0 {
		t.Errorf("tempDir %v, temporaryDirectories %v", info.TempDir, info.TemporaryDirectories)
	}
	if info.PlatformOs == nil || *info.PlatformOs == "" {
		t.Error("no platformOs")
	}
}

func Test_local_environment_info_resolves_relative_temporary_directory(t *testing.T) {
	t.Setenv("TMPDIR", "relative-tmp")
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	info := LocalEnvironmentInfo()
	if want := uri(filepath.Join(cwd, "relative-tmp")); info.TempDir == nil || string(*info.TempDir) != want {
		t.Errorf("tempDir %v, want %s", info.TempDir, want)
	}
}

// TestProcessNotificationsAreOrdered: output chunks, exited and closed carry increasing seqs,
// closed last; process/read returns the retained chunks and the exit.
func TestProcessNotificationsAreOrdered(t *testing.T) {
	c := connect(t, newServer(t, ""))
	c.initialize()
	got := c.mustCall("process/start", `{"processId":"p1","argv":["sh","-c","printf out; printf err >&2; printf more; exit 3"],"cwd":"`+uri(t.TempDir())+`","env":{"PATH":"/usr/bin:/bin"},"tty":false}`)
	if got != `{"processId":"p1","sandboxType":"none"}` {
		t.Errorf("start: %s", got)
	}
	all := c.waitFor(closedNotification("p1"))
	var seqs []uint64
	var stdout, stderr string
	exited := false
	for i, n := range all {
		switch n.method {
		case "process/output":
			o, err := wire.DecodeExecOutputDeltaNotification(n.params)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := base64.StdEncoding.DecodeString(o.Chunk)
			if o.Stream == "stdout" {
				stdout += string(data)
			} else {
				stderr += string(data)
			}
			seqs = append(seqs, o.Seq)
		case "process/exited":
			e, _ := wire.DecodeExecExitedNotification(n.params)
			if e.ExitCode != 3 {
				t.Errorf("exit code %d", e.ExitCode)
			}
			exited = true
			seqs = append(seqs, e.Seq)
		case "process/closed":
			cl, _ := wire.DecodeExecClosedNotification(n.params)
			seqs = append(seqs, cl.Seq)
			if i != len(all)-1 || !exited {
				t.Errorf("closed is not last after exited: %v", all)
			}
		}
	}
	for i := range seqs {
		if seqs[i] != uint64(i+1) {
			t.Errorf("seqs %v", seqs)
			break
		}
	}
	if stdout != "outmore" || stderr != "err" {
		t.Errorf("stdout %q stderr %q", stdout, stderr)
	}
	read, err := wire.DecodeReadResponse([]byte(c.mustCall("process/read", `{"processId":"p1","afterSeq":0}`)))
	if err != nil {
		t.Fatal(err)
	}
	// nextSeq is one past the last event, the close (Codex's).
	if !read.Exited || !read.Closed || read.ExitCode == nil || *read.ExitCode != 3 || len(read.Chunks) == 0 || read.NextSeq != uint64(len(seqs)+1) {
		t.Errorf("read %+v", read)
	}
}

// TestProcessReadWaitsForOutput: a read with waitMs returns when output arrives, and a write
// reaches the process's stdin.
func TestProcessReadWaitsForOutput(t *testing.T) {
	c := connect(t, newServer(t, ""))
	c.initialize()
	c.mustCall("process/start", `{"processId":"cat","argv":["head","-n","1"],"cwd":"file:///","env":{},"tty":false,"pipeStdin":true}`)
	reply := make(chan string, 1)
	go func() {
		r, _ := c.call("process/read", `{"processId":"cat","afterSeq":0,"waitMs":60000}`)
		reply <- string(r)
	}()
	if got := c.mustCall("process/write", `{"processId":"cat","chunk":"`+base64.StdEncoding.EncodeToString([]byte("hello\n"))+`","writeId":"w1"}`); got != `{"status":"accepted"}` {
		t.Errorf("write: %s", got)
	}
	select {
	case r := <-reply:
		if !strings.Contains(r, `"chunk":"aGVsbG8K"`) {
			t.Errorf("read %s", r)
		}
	case <-time.After(hangGuard):
		t.Fatal("read did not return")
	}
	c.waitFor(closedNotification("cat"))
	if got := c.mustCall("process/write", `{"processId":"nope","chunk":"","writeId":"w2"}`); got != `{"status":"unknownProcess"}` {
		t.Errorf("unknown: %s", got)
	}
}

// TestTerminateKillsAProcessThatIgnoresSIGINT: process/signal interrupt does not stop it;
// process/terminate kills its whole group.
func TestTerminateKillsAProcessThatIgnoresSIGINT(t *testing.T) {
	c := connect(t, newServer(t, ""))
	c.initialize()
	c.mustCall("process/start", `{"processId":"stubborn","argv":["sh","-c","trap '' INT; echo ready; while :; do sleep 1; done"],"cwd":"file:///","env":{"PATH":"/usr/bin:/bin"},"tty":false}`)
	c.waitFor(func(n notification) bool { return n.method == "process/output" })
	if got := c.mustCall("process/signal", `{"processId":"stubborn","signal":"interrupt"}`); got != `{}` {
		t.Errorf("signal: %s", got)
	}
	if got := c.mustCall("process/terminate", `{"processId":"stubborn"}`); got != `{"running":true}` {
		t.Errorf("terminate: %s", got)
	}
	all := c.waitFor(closedNotification("stubborn"))
	for _, n := range all {
		if n.method == "process/exited" && !strings.Contains(string(n.params), `"exitCode":137`) {
			t.Errorf("exited %s, want SIGKILL's 137", n.params)
		}
	}
	if got := c.mustCall("process/terminate", `{"processId":"stubborn"}`); got != `{"running":false}` {
		t.Errorf("second terminate: %s", got)
	}
}

func TestManagedNetworkEnforcementFailsClosed(t *testing.T) {
	c := connect(t, newServer(t, ""))
	c.initialize()
	_, err := c.call("process/start", `{"processId":"n","argv":["true"],"cwd":"file:///","env":{},"tty":false,"enforceManagedNetwork":true}`)
	if err == nil || !strings.Contains(err.Error(), "managed network enforcement is not supported") {
		t.Errorf("got %v", err)
	}
}

// TestRootConfinesFiles: inside the root the fs methods work; outside — directly, through "..",
// through a symlink, or as a process cwd — they are refused with a clear error.
func TestRootConfinesFiles(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	srv := newServer(t, root)
	c := connect(t, srv)
	c.initialize()
	c.mustCall("fs/createDirectory", `{"path":"`+uri(filepath.Join(root, "d/e"))+`","recursive":true,"sandbox":null}`)
	c.mustCall("fs/writeFile", `{"path":"`+uri(filepath.Join(root, "d/e/f.txt"))+`","dataBase64":"aGk=","sandbox":null}`)
	c.mustCall("fs/copy", `{"sourcePath":"`+uri(filepath.Join(root, "d"))+`","destinationPath":"`+uri(filepath.Join(root, "d2"))+`","recursive":true,"sandbox":null}`)
	if got := c.mustCall("fs/readFile", `{"path":"`+uri(filepath.Join(root, "d2/e/f.txt"))+`","sandbox":null}`); got != `{"dataBase64":"aGk="}` {
		t.Errorf("read %s", got)
	}
	if got := c.mustCall("fs/getMetadata", `{"path":"`+uri(filepath.Join(root, "d2/e/f.txt"))+`","sandbox":null}`); !strings.HasPrefix(got, `{"isDirectory":false,"isFile":true,"isSymlink":false,"size":2,`) {
		t.Errorf("metadata %s", got)
	}
	if got := c.mustCall("fs/readDirectory", `{"path":"`+uri(filepath.Join(root, "d2"))+`","sandbox":null}`); got != `{"entries":[{"fileName":"e","isDirectory":true,"isFile":false}]}` {
		t.Errorf("list %s", got)
	}
	if got := c.mustCall("fs/canonicalize", `{"path":"`+uri(filepath.Join(root, "d2/../d"))+`","sandbox":null}`); got != `{"path":"`+uri(filepath.Join(srv.Root(), "d"))+`"}` {
		t.Errorf("canonicalize %s", got)
	}
	c.mustCall("fs/remove", `{"path":"`+uri(filepath.Join(root, "d2"))+`","recursive":true,"force":false,"sandbox":null}`)

	want := "access denied: %s is outside the exec-server root " + srv.Root()
	for _, p := range []string{filepath.Join(outside, "secret"), root + "/../" + filepath.Base(outside) + "/secret", filepath.Join(root, "escape/secret")} {
		_, err := c.call("fs/readFile", `{"path":"`+uri(p)+`","sandbox":null}`)
		e, ok := err.(*execrpc.Error)
		if !ok || e.Code != -32602 || !strings.HasPrefix(e.Message, "access denied: ") || !strings.HasSuffix(e.Message, "is outside the exec-server root "+srv.Root()) {
			t.Errorf("%s: %v (want %q)", p, err, want)
		}
	}
	_, err := c.call("process/start", `{"processId":"x","argv":["true"],"cwd":"`+uri(outside)+`","env":{},"tty":false}`)
	if err == nil || !strings.Contains(err.Error(), "is outside the exec-server root") {
		t.Errorf("cwd outside: %v", err)
	}
}

// Codex 0.171's texts for bad base64 (Rust's base64 crate), captured from its exec-server.
func Test_base64_errors_are_worded_as_codex_does(t *testing.T) {
	for in, want := range map[string]string{
		"!!":        "Invalid symbol 33, offset 0.",
		"aGk":       "Invalid padding",
		"aGk==":     "Invalid symbol 61, offset 3.",
		"aGl=":      "Invalid last symbol 108, offset 2.",
		"aGVsb":     "Invalid input length: 5",
		"aGVsb===":  "Invalid symbol 61, offset 5.",
		"aGVsbG8gd": "Invalid input length: 9",
		"a":         "Invalid input length: 1",
		"a===":      "Invalid symbol 61, offset 1.",
		"aG==":      "Invalid last symbol 71, offset 1.",
		"aGk=aGk=":  "Invalid symbol 61, offset 3.",
	} {
		if _, err := decodeBase64(in); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
	if data, err := decodeBase64("aGk="); err != nil || string(data) != "hi" {
		t.Errorf("valid: %q, %v", data, err)
	}
}

// TestRemoveKeepsTheRoot: fs/remove of the root itself, however it is spelt ("root/sub/..", the
// root's own path, a symlink inside the root that points at it), is refused and the root and its
// files stay; removing inside the root still works. Before, "root/sub/.." deleted the root.
func TestRemoveKeepsTheRoot(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"sub", "keep"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(root, filepath.Join(root, "self")); err != nil {
		t.Fatal(err)
	}
	srv := newServer(t, root)
	c := connect(t, srv)
	c.initialize()
	for _, p := range []string{filepath.Join(root, "sub") + "/..", root, filepath.Join(root, "self") + "/."} {
		_, err := c.call("fs/remove", `{"path":"`+uri(p)+`","recursive":true,"force":true,"sandbox":null}`)
		e, ok := err.(*execrpc.Error)
		if !ok || e.Code != -32602 || !strings.Contains(e.Message, "is the exec-server root "+srv.Root()+" itself, which fs/remove keeps") {
			t.Errorf("fs/remove %s: %v, want it refused", p, err)
		}
		if _, err := os.Stat(filepath.Join(root, "keep")); err != nil {
			t.Fatalf("after fs/remove %s the root's files are gone: %v", p, err)
		}
	}
	c.mustCall("fs/remove", `{"path":"`+uri(filepath.Join(root, "sub"))+`","recursive":true,"force":true,"sandbox":null}`)
	if _, err := os.Stat(filepath.Join(root, "sub")); !os.IsNotExist(err) {
		t.Fatalf("a directory inside the root was not removed: %v", err)
	}
}
