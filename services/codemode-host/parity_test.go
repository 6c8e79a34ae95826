package main_test

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/codemodehq/codemode/pkg/testenv"
)

// Runtime parity with Codex's own host, proved by differential testing: every cell of the
// parity corpus runs on Codex's host and on codemode-host, both over V1 on stdio, with the same
// scripted client answering their tool calls and notifications the same way; the transcripts
// (every frame sent and received, in order) must be identical once the values that differ
// between any two runs are removed: the timings, and the IDs a host assigns itself (delegate
// request IDs and cell IDs, renumbered per case in order of appearance), and the delegate/cancel of
// a request the client had already answered (the cancel crossed the answer on the wire; whether it
// is sent depends on which arrived first). Codex's own host orders some events by a race of its
// tasks (a yield answer and the requests of the same turn); a case that differs is run again on
// Codex, and codemode's transcript passes when it is one Codex produced. A case whose
// transcripts differ must be listed in testdata/codex-runtime-differences.json with the reason
// (engine-only differences: V8's own message texts and stack format); a listed case that starts
// agreeing fails the test. `make diff-codex` prints the table and the transcripts.

var printParity = flag.Bool("parity-print", false, "print every parity case's transcripts (make diff-codex)")

// parityTools are the tools every case's cells see, and how the scripted client answers them.
const parityTools = `[` +
	`{"name":"echo","tool_name":{"name":"echo","namespace":null},"description":"Returns its input.","kind":"function","input_schema":null,"output_schema":null},` +
	`{"name":"fail","tool_name":{"name":"fail","namespace":null},"description":"Always fails.","kind":"function","input_schema":null,"output_schema":null},` +
	`{"name":"never","tool_name":{"name":"never","namespace":null},"description":"Never answers.","kind":"function","input_schema":null,"output_schema":null},` +
	`{"name":"size","tool_name":{"name":"size","namespace":null},"description":"Returns a string of input.n characters.","kind":"function","input_schema":null,"output_schema":null},` +
	`{"name":"typed","tool_name":{"name":"typed","namespace":null},"description":"Has a schema.","kind":"function","input_schema":{"type":"object","properties":{"n":{"type":"number"}},"required":["n"],"additionalProperties":false},"output_schema":{"type":"object"}},` +
	`{"name":"mcp__files__read","tool_name":{"name":"read","namespace":"mcp__files__"},"description":"A namespaced tool.","kind":"function","input_schema":null,"output_schema":null},` +
	`{"name":"patch","tool_name":{"name":"patch","namespace":null},"description":"A freeform tool.","kind":"freeform","input_schema":null,"output_schema":null}` +
	`]`

// parityCase is one case of the corpus: cells run one after another in one session.
type parityCase struct {
	name string
	// cells are the sources of the session's cells, run in order. A cell that yields is
	// observed with a session/wait until it ends, unless terminate is set. "@wait N" and
	// "@terminate N" send that request for cell N (as the case numbers its cells, from 1)
	// instead of a cell.
	cells []string
	// terminate ends a yielded cell with session/terminate instead of waiting for it.
	terminate bool
	// budget is max_output_tokens (JSON; "null" when empty).
	budget string
	// server opens the session with outputTruncation "server".
	server bool
	// yieldMs is yield_time_ms of the execute requests (30 s when 0).
	yieldMs int
}

// parityEvent is one frame of a transcript: sent (">") or received ("<").
type parityEvent struct {
	dir   string
	frame string
}

// parityDriver runs cases on one host process over V1 stdio, one session per case.
type parityDriver struct {
	t    *testing.T
	path string
	p    *v1Process
	next int // the next request ID
}

func newParityDriver(t *testing.T, path string) *parityDriver {
	d := &parityDriver{t: t, path: path}
	d.restart()
	return d
}

// restart starts a new host process and shakes hands. Both hosts run with TZ=UTC: Codex's V8
// formats local times in the process's time zone, codemode's Date has only UTC
// (docs/adr/0063-en-us-locale-and-a-small-intl.md), and the locale cases print local times.
func (d *parityDriver) restart() {
	d.p = startV1ProcessEnv(d.t, d.path, []string{"TZ=UTC"})
	d.p.send(helloCodex)
	if f, err := d.p.receive(); err != nil || !strings.Contains(f, "connection/ready") {
		d.t.Fatalf("%s: handshake answered %q, %v", d.path, f, err)
	}
	d.next = 1
}

// caseRun is the state of one case on one host.
type caseRun struct {
	d       *parityDriver
	c       parityCase
	session string
	events  []parityEvent
	// executes counts the case's session/execute requests (their tool_call_id).
	executes int
	// pending are the request IDs sent and not yet answered.
	pending map[int]string
	// cells are the host's cell IDs in order of appearance.
	cells []string
	// open are the cells started and not yet closed.
	open map[string]bool
	// exited is set when the host ended the connection.
	exited bool
}

func (d *parityDriver) run(c parityCase, index int) []parityEvent {
	r := &caseRun{d: d, c: c, session: "s" + strconv.Itoa(index), pending: map[int]string{}, open: map[string]bool{}}
	r.play()
	if r.exited {
		d.restart()
	}
	return r.events
}

// play opens the session, runs the cells and shuts the session down.
func (r *caseRun) play() {
	open := `{"method":"session/open","sessionId":"` + r.session + `"}`
	if r.c.server {
		open = `{"method":"session/open","sessionId":"` + r.session + `","outputTruncation":"server"}`
	}
	r.request(open)
	r.drain()
	for _, cell := range r.c.cells {
		if r.exited {
			return
		}
		r.step(cell)
		r.drain()
	}
	if !r.exited {
		r.request(`{"method":"session/shutdown","sessionId":"` + r.session + `"}`)
		r.drain()
	}
}

// step sends one cell, or one "@wait N" / "@terminate N".
func (r *caseRun) step(cell string) {
	if verb, n, ok := strings.Cut(cell, " "); ok && (verb == "@wait" || verb == "@terminate") {
		id := r.cellID(n)
		if verb == "@wait" {
			r.request(r.waitBody(id))
		} else {
			r.request(`{"method":"session/terminate","sessionId":"` + r.session + `","cellId":` + strconv.Quote(id) + `}`)
		}
		return
	}
	src, _ := json.Marshal(cell)
	budget := r.c.budget
	if budget == "" {
		budget = "null"
	}
	yield := r.c.yieldMs
	if yield == 0 {
		yield = 30000
	}
	r.executes++
	r.request(fmt.Sprintf(`{"method":"session/execute","sessionId":%q,"request":{"tool_call_id":"call-%d","enabled_tools":%s,"source":%s,"yield_time_ms":%d,"max_output_tokens":%s}}`,
		r.session, r.executes, parityTools, src, yield, budget))
}

// cellID is the host's ID of the case's cell n (from 1), or n itself when there is no such cell.
func (r *caseRun) cellID(n string) string {
	i, err := strconv.Atoi(n)
	if err == nil && i >= 1 && i <= len(r.cells) {
		return r.cells[i-1]
	}
	return n
}

func (r *caseRun) waitBody(cell string) string {
	return `{"method":"session/wait","sessionId":"` + r.session + `","request":{"cell_id":` + strconv.Quote(cell) + `,"yield_time_ms":30000}}`
}

// request sends an operation/request with the next ID.
func (r *caseRun) request(body string) {
	id := r.d.next
	r.d.next++
	r.pending[id] = body
	r.send(fmt.Sprintf(`{"type":"operation/request","id":%d,"request":%s}`, id, body))
}

func (r *caseRun) send(frame string) {
	r.events = append(r.events, parityEvent{">", frame})
	r.d.p.send(frame)
}

// drain reads frames, answering delegate requests and following yielded cells, until every
// request is answered and every cell it saw is closed.
func (r *caseRun) drain() {
	for len(r.pending) > 0 || len(r.open) > 0 {
		f, err := r.d.p.receive()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				r.d.t.Fatalf("%s: %v", r.d.path, err)
			}
			r.events = append(r.events, parityEvent{"<", "EOF"})
			r.exited = true
			return
		}
		r.events = append(r.events, parityEvent{"<", f})
		r.handle(f)
	}
}

// hostFrame is what the driver reads of a host's frame.
type hostFrame struct {
	Type    string          `json:"type"`
	ID      *int            `json:"id"`
	CellID  string          `json:"cellId"`
	Request json.RawMessage `json:"request"`
	Result  struct {
		Status string          `json:"status"`
		Value  json.RawMessage `json:"value"`
	} `json:"result"`
}

func (r *caseRun) handle(f string) {
	// A tool call's input ends its frame (`"input":…}}}`): it is cut off before decoding, since
	// it may nest deeper than encoding/json decodes.
	head, input := f, ""
	if i := strings.LastIndex(f, `,"input":`); i >= 0 && strings.HasPrefix(f, `{"type":"delegate/request"`) && strings.HasSuffix(f, "}}}") {
		head, input = f[:i]+"}}}", f[i+len(`,"input":`):len(f)-3]
	}
	var h hostFrame
	if err := json.Unmarshal([]byte(head), &h); err != nil {
		r.d.t.Fatalf("%s sent %.300q: %v", r.d.path, f, err)
	}
	switch h.Type {
	case "delegate/request":
		r.answerDelegate(*h.ID, h.Request, input)
	case "cell/closed":
		delete(r.open, h.CellID)
	case "operation/response", "execute/initialResponse":
		r.answered(*h.ID, h.Type, h.Result.Status, h.Result.Value)
	}
}

// answered handles the response to request id: a started cell is remembered, and a cell that
// yielded is waited for (or terminated).
func (r *caseRun) answered(id int, typ, status string, value json.RawMessage) {
	if typ == "operation/response" || status != "ok" {
		delete(r.pending, id)
	}
	if status != "ok" {
		return
	}
	var v struct {
		Type    string                     `json:"type"`
		CellID  string                     `json:"cellId"`
		Outcome map[string]json.RawMessage `json:"outcome"`
		Yielded *struct {
			CellID string `json:"cell_id"`
		} `json:"Yielded"`
		Result *json.RawMessage `json:"Result"`
	}
	_ = json.Unmarshal(value, &v)
	switch {
	case v.Type == "execution/started":
		r.cells = append(r.cells, v.CellID)
		r.open[v.CellID] = true
	case typ == "execute/initialResponse":
		delete(r.pending, id)
		r.followYield(v.Yielded)
	case v.Type == "wait/completed":
		if live, ok := v.Outcome["LiveCell"]; ok {
			var inner struct {
				Yielded *struct {
					CellID string `json:"cell_id"`
				} `json:"Yielded"`
			}
			_ = json.Unmarshal(live, &inner)
			r.followYield(inner.Yielded)
		}
	}
}

func (r *caseRun) followYield(y *struct {
	CellID string `json:"cell_id"`
}) {
	if y == nil || !r.open[y.CellID] {
		return
	}
	if r.c.terminate {
		r.request(`{"method":"session/terminate","sessionId":"` + r.session + `","cellId":` + strconv.Quote(y.CellID) + `}`)
		return
	}
	r.request(r.waitBody(y.CellID))
}

// answerDelegate answers a tool call by its tool's rule, and a notification as delivered.
func (r *caseRun) answerDelegate(id int, request json.RawMessage, input string) {
	var req struct {
		Type       string `json:"type"`
		Invocation struct {
			ToolName struct {
				Name string `json:"name"`
			} `json:"tool_name"`
		} `json:"invocation"`
	}
	if err := json.Unmarshal(request, &req); err != nil {
		r.d.t.Fatalf("delegate request %s: %v", request, err)
	}
	reply := func(result string) {
		r.send(fmt.Sprintf(`{"type":"delegate/response","id":%d,"result":%s}`, id, result))
	}
	if req.Type == "notification/send" {
		reply(`{"status":"ok","value":{"type":"notification/delivered"}}`)
		return
	}
	if input == "" {
		input = "null"
	}
	switch req.Invocation.ToolName.Name {
	case "never":
	case "fail":
		reply(`{"status":"error","message":"tool exploded"}`)
	case "size":
		var in struct {
			N int `json:"n"`
		}
		_ = json.Unmarshal([]byte(input), &in)
		reply(`{"status":"ok","value":{"type":"tool/result","result":"` + strings.Repeat("x", in.N) + `"}}`)
	default:
		reply(`{"status":"ok","value":{"type":"tool/result","result":` + input + `}}`)
	}
}

// Values that differ between any two runs, on any host.
var (
	parityTiming   = regexp.MustCompile(`"(code_mode_host_duration_ns|result_buffered_for_ns)":[0-9]+`)
	parityDelegate = regexp.MustCompile(`"type":"delegate/(request|response|cancel)","id":([0-9]+)`)
	parityCellKey  = regexp.MustCompile(`"(cell_id|cellId)":"([^"]*)"`)
	parityRequest  = regexp.MustCompile(`^\{"type":"(operation/request|operation/response|execute/initialResponse)","id":([0-9]+)`)
)

// normalize renders a transcript with timings zeroed, request, delegate and cell IDs renumbered
// in order of appearance, and without the cancels of requests the client had answered.
func normalize(events []parityEvent) []string {
	events = withoutCrossedCancels(events)
	ids := map[string]string{}
	renumber := func(kind, id string) string {
		key := kind + ":" + id
		if v, ok := ids[key]; ok {
			return v
		}
		n := 0
		for k := range ids {
			if strings.HasPrefix(k, kind+":") {
				n++
			}
		}
		ids[key] = strconv.Itoa(n + 1)
		return ids[key]
	}
	out := make([]string, len(events))
	for i, e := range events {
		f := parityTiming.ReplaceAllString(e.frame, `"$1":0`)
		f = parityRequest.ReplaceAllStringFunc(f, func(m string) string {
			sub := parityRequest.FindStringSubmatch(m)
			return `{"type":"` + sub[1] + `","id":` + renumber("request", sub[2])
		})
		f = parityDelegate.ReplaceAllStringFunc(f, func(m string) string {
			sub := parityDelegate.FindStringSubmatch(m)
			return `"type":"delegate/` + sub[1] + `","id":` + renumber("delegate", sub[2])
		})
		f = parityCellKey.ReplaceAllStringFunc(f, func(m string) string {
			sub := parityCellKey.FindStringSubmatch(m)
			return `"` + sub[1] + `":"` + renumber("cell", sub[2]) + `"`
		})
		out[i] = e.dir + " " + f
	}
	return out
}

// withoutCrossedCancels drops each delegate/cancel that follows the client's answer to the same
// request.
func withoutCrossedCancels(events []parityEvent) []parityEvent {
	answered := map[string]bool{}
	out := events[:0:0]
	for _, e := range events {
		if m := parityDelegate.FindStringSubmatch(e.frame); m != nil {
			switch {
			case m[1] == "response":
				answered[m[2]] = true
			case m[1] == "cancel" && answered[m[2]]:
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

// parityDifference is an entry of testdata/codex-runtime-differences.json.
type parityDifference struct {
	Case string `json:"case"`
	// Kind is "engine" (V8 and QuickJS differ in what the engine itself produces), "defect"
	// (Codex's behaviour is a defect codemode does not copy) or "race" (Codex's host orders the
	// case's events by a race of its own tasks, and codemode keeps the order the script caused:
	// the transcripts agree in some runs, so agreement does not make the entry stale).
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
}

const parityDifferencesFile = "testdata/codex-runtime-differences.json"

func loadParityDifferences(t *testing.T) map[string]parityDifference {
	t.Helper()
	data, err := os.ReadFile(parityDifferencesFile)
	if err != nil {
		t.Fatal(err)
	}
	var list []parityDifference
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatalf("%s: %v", parityDifferencesFile, err)
	}
	out := map[string]parityDifference{}
	for _, d := range list {
		if d.Reason == "" || (d.Kind != "engine" && d.Kind != "defect" && d.Kind != "race") {
			t.Fatalf("%s: %s needs a reason and a kind (engine, defect or race)", parityDifferencesFile, d.Case)
		}
		out[d.Case] = d
	}
	return out
}

// runCorpus runs every case on a host, in order, and returns the normalized transcripts.
func runCorpus(t *testing.T, path string, cases []parityCase) [][]string {
	d := newParityDriver(t, path)
	out := make([][]string, len(cases))
	for i, c := range cases {
		out[i] = normalize(d.run(c, i))
	}
	return out
}

func TestRuntimeParityWithCodexHost(t *testing.T) {
	codex := testenv.FindCodex(t)
	cases := parityCorpus()
	names := map[string]bool{}
	for _, c := range cases {
		if names[c.name] {
			t.Fatalf("two parity cases are named %s", c.name)
		}
		names[c.name] = true
	}
	expected := loadParityDifferences(t)
	for name := range expected {
		if !names[name] {
			t.Errorf("%s lists %s, which is not a case", parityDifferencesFile, name)
		}
	}
	var theirs, ours [][]string
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); theirs = runCorpus(t, codex.Host, cases) }()
	go func() { defer wg.Done(); ours = runCorpus(t, bin, cases) }()
	wg.Wait()
	if t.Failed() {
		return
	}
	rerunDifferences(t, codex.Host, cases, theirs, ours)
	identical, listed := 0, 0
	var problems []string
	for i, c := range cases {
		same := strings.Join(theirs[i], "\n") == strings.Join(ours[i], "\n")
		d, isListed := expected[c.name]
		if *printParity || (!same && !isListed) {
			t.Logf("case %s:\n%s", c.name, sideBySide(theirs[i], ours[i]))
		}
		switch {
		case same && isListed && d.Kind != "race":
			problems = append(problems, "agrees now, remove it from "+parityDifferencesFile+": "+c.name)
		case same && isListed:
			listed++
		case !same && !isListed:
			problems = append(problems, "differs from Codex "+codex.Version+": "+c.name)
		case same:
			identical++
		default:
			listed++
		}
	}
	sort.Strings(problems)
	t.Logf("runtime parity with Codex %s's host: %d cases, %d identical, %d listed differences (%s)", codex.Version, len(cases), identical, listed, countKinds(expected))
	if len(problems) > 0 {
		t.Fatalf("%d problems:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}

// countKinds renders how many listed differences there are of each kind.
func countKinds(expected map[string]parityDifference) string {
	counts := map[string]int{}
	for _, d := range expected {
		counts[d.Kind]++
	}
	var parts []string
	for _, k := range []string{"engine", "race", "defect"} {
		if counts[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
		}
	}
	return strings.Join(parts, ", ")
}

// codexReruns is how many more times a case that differs runs on Codex's host, looking for the
// transcript codemode produced among the orders Codex's own races produce.
const codexReruns = 5

// rerunDifferences runs each case whose transcripts differ again on Codex's host, on one fresh
// process, and takes a transcript that agrees with codemode's when one comes.
func rerunDifferences(t *testing.T, codexHost string, cases []parityCase, theirs, ours [][]string) {
	var d *parityDriver
	for i, c := range cases {
		for n := 0; n < codexReruns && strings.Join(theirs[i], "\n") != strings.Join(ours[i], "\n"); n++ {
			if d == nil {
				d = newParityDriver(t, codexHost)
			}
			if again := normalize(d.run(c, i)); strings.Join(again, "\n") == strings.Join(ours[i], "\n") {
				theirs[i] = again
			}
		}
	}
}

// sideBySide renders two transcripts, marking the first line where they part.
func sideBySide(codex, codemode []string) string {
	var b strings.Builder
	n := max(len(codex), len(codemode))
	for i := range n {
		var a, c string
		if i < len(codex) {
			a = codex[i]
		}
		if i < len(codemode) {
			c = codemode[i]
		}
		if a == c {
			fmt.Fprintf(&b, "  both     %s\n", a)
			continue
		}
		fmt.Fprintf(&b, "  codex    %s\n  codemode %s\n", a, c)
	}
	return b.String()
}
