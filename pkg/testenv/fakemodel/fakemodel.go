// Package fakemodel is a scripted model for driving the real Codex agent offline: an HTTP server
// that answers Codex's Responses API requests (POST /v1/responses) with a Server-Sent Events
// stream of the output items a test scripted, one reply per request, and records every request
// so the test can read what the model was shown (the exec tool's output among them).
package fakemodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
)

// Reply is what the model answers to one request: its output items, in order.
type Reply []map[string]any

// Exec is a reply calling Codex's code-mode exec tool (a custom tool) with source as its input.
func Exec(callID, source string) Reply {
	return Reply{{"type": "custom_tool_call", "id": "ctc_" + callID, "call_id": callID, "name": "exec", "input": source, "status": "completed"}}
}

// Function is a reply calling a function tool (Codex's wait, say) with arguments.
func Function(callID, name string, arguments any) Reply {
	args, err := json.Marshal(arguments)
	if err != nil {
		panic(fmt.Sprintf("fakemodel: arguments of %s: %v", name, err))
	}
	return Reply{{"type": "function_call", "id": "fc_" + callID, "call_id": callID, "name": name, "arguments": string(args), "status": "completed"}}
}

// Say is a reply with an assistant message, which ends Codex's turn.
func Say(text string) Reply {
	return Reply{{"type": "message", "id": "msg_" + text, "role": "assistant", "status": "completed",
		"content": []map[string]any{{"type": "output_text", "text": text, "annotations": []any{}}}}}
}

// Server is the scripted model. Requests past the script are answered 500 and recorded as a
// failure (Err), unless the script repeats (Options.Repeat).
type Server struct {
	// URL is the base URL for Codex's provider configuration: http://127.0.0.1:PORT/v1.
	URL string

	srv      *http.Server
	ln       net.Listener
	opts     Options
	mu       sync.Mutex
	script   []Reply
	requests []json.RawMessage
	err      error
}

// Options configure a Server beyond its script.
type Options struct {
	// Addr is the address to listen on (default "127.0.0.1:0", a free port of the loopback).
	Addr string
	// Repeat starts the script again after its last reply, so that one server answers one
	// turn after another (each turn must take the whole script).
	Repeat bool
	// OnRequest, when set, is called with each request's number (from 1) and JSON body, in
	// order, before it is answered; it runs under the server's lock, so it must not call the
	// Server's methods.
	OnRequest func(n int, body []byte)
}

// Start serves script on a free port of 127.0.0.1.
func Start(script ...Reply) (*Server, error) {
	return StartWith(Options{}, script...)
}

// StartWith serves script as opts say.
func StartWith(opts Options, script ...Reply) (*Server, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("fakemodel: listen: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String() + "/v1", ln: ln, opts: opts, script: script}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/responses", s.respond)
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"models":[]}`)
	})
	s.srv = &http.Server{Handler: mux}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// Requests returns the JSON bodies of the requests received so far.
func (s *Server) Requests() []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]json.RawMessage(nil), s.requests...)
}

// Err reports the first request the script had no reply for, or a body that was not JSON.
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// respond answers one request with the next reply of the script.
func (s *Server) respond(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	reply, n, ok := s.record(body, err)
	if !ok {
		http.Error(w, "fakemodel: no reply scripted for this request", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	id := fmt.Sprintf("resp_%d", n)
	writeEvent(w, "response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": id}})
	for _, item := range reply {
		writeEvent(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "item": item})
	}
	writeEvent(w, "response.completed", map[string]any{"type": "response.completed", "response": map[string]any{
		"id": id, "usage": map[string]any{"input_tokens": 0, "output_tokens": 0, "total_tokens": 0},
	}})
}

// record keeps a request and takes its reply.
func (s *Server) record(body []byte, readErr error) (Reply, int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if readErr == nil && !json.Valid(body) {
		readErr = fmt.Errorf("request %d is not JSON", len(s.requests)+1)
	}
	if readErr != nil {
		s.fail(readErr)
		return nil, 0, false
	}
	s.requests = append(s.requests, body)
	n := len(s.requests)
	if s.opts.OnRequest != nil {
		s.opts.OnRequest(n, body)
	}
	i := n - 1
	if s.opts.Repeat && len(s.script) > 0 {
		i %= len(s.script)
	}
	if i >= len(s.script) {
		s.fail(fmt.Errorf("request %d has no scripted reply (the script has %d)", n, len(s.script)))
		return nil, 0, false
	}
	return s.script[i], n, true
}

func (s *Server) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// writeEvent writes one SSE event.
func writeEvent(w http.ResponseWriter, name string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		panic(fmt.Sprintf("fakemodel: event %s: %v", name, err))
	}
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
