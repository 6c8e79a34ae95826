package jsruntime

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// The lifecycle's tests run every event in every state, on plain values: no goroutine, no clock,
// no runtime. A transition the table below does not list must leave the lifecycle as it was and
// have no effect (an event that does not apply in that state, such as a yield of a completed cell
// or a second terminate); a refusal is listed, since the caller answers it.

// The observers and terminators of the tests. The lifecycle never calls them: it only compares
// and names them.
var (
	lcInitial = &observer{kind: initialObserver, deadline: 30 * time.Second, hasDeadline: true}
	lcNow     = &observer{kind: initialObserver, deadline: 0, hasDeadline: true}
	lcWait    = &observer{kind: waitObserver, deadline: 30 * time.Second, hasDeadline: true}
	lcZero    = &observer{kind: waitObserver, deadline: 0, hasDeadline: true}
	lcPending = &observer{kind: pendingObserver}
	lcOther   = &observer{kind: waitObserver, deadline: 30 * time.Second, hasDeadline: true}
	lcTerm    = make(chan codemode.RuntimeResponse, 1)
	lcTerm2   = make(chan codemode.RuntimeResponse, 1)
)

// lcName names the test observers and terminators in descriptions.
func lcName(v any) string {
	switch v {
	case lcInitial:
		return "i"
	case lcNow:
		return "n"
	case lcWait:
		return "w"
	case lcZero:
		return "z"
	case lcPending:
		return "p"
	case lcOther:
		return "x"
	case lcTerm:
		return "t"
	case lcTerm2:
		return "u"
	}
	return "?"
}

// lcStates are the states the events run in, as a cell reaches them.
var lcStates = map[string]cellLifecycle{
	// Execute's cell before its runtime started, and ExecuteToPending's, observed or not.
	"admitted":         newCellLifecycle(lcInitial, false),
	"admitted-now":     newCellLifecycle(lcNow, false), // a zero yield time
	"admitted-pending": newCellLifecycle(lcPending, true),
	"admitted-alone":   newCellLifecycle(nil, true),
	// Running with its runtime started: never observed, yielded (observed before), observed by
	// a Wait, by a pending observer, and paused at a frontier nobody was handed.
	"fresh":   {phase: cellRunning, started: true},
	"yielded": {phase: cellRunning, started: true, observed: true},
	"waited":  {phase: cellRunning, started: true, observed: true, observer: lcWait, armed: true},
	"pending": {phase: cellRunning, started: true, observed: true, pendingMode: true, observer: lcPending},
	"paused":  {phase: cellRunning, started: true, observed: true, pendingMode: true, paused: true, frontierReady: true},
	// Completed with its Result kept, nobody observing.
	"completed": {phase: cellCompleted, started: true, observed: true},
	// Terminating: interrupted, with a Wait still observing, claimed by a Terminate, both.
	"terminating":          {phase: cellTerminating, started: true, observed: true},
	"terminating-initial":  {phase: cellTerminating, started: true, observed: true, observer: lcInitial, armed: true},
	"terminating-observed": {phase: cellTerminating, started: true, observed: true, observer: lcWait, armed: true},
	"terminating-claimed":  {phase: cellTerminating, started: true, observed: true, terminator: lcTerm},
	"terminating-both":     {phase: cellTerminating, started: true, observed: true, observer: lcWait, armed: true, terminator: lcTerm},
	"delivering":           {phase: cellDelivering, started: true, observed: true},
	"closed":               {phase: cellClosed, started: true, observed: true},
}

// lcEvents are the events, with the observers and terminators they name.
var lcEvents = map[string]event{
	"attach(w)":           {kind: evAttach, obs: lcWait},
	"attach(z)":           {kind: evAttach, obs: lcZero},
	"attach(w)+apart":     {kind: evAttach, obs: lcWait, setApart: true},
	"attach(p)":           {kind: evAttach, obs: lcPending},
	"attach(p)+apart":     {kind: evAttach, obs: lcPending, setApart: true},
	"started":             {kind: evStarted},
	"deadline(w)":         {kind: evDeadline, obs: lcWait},
	"deadline(i)":         {kind: evDeadline, obs: lcInitial},
	"deadline(x)":         {kind: evDeadline, obs: lcOther},
	"yield":               {kind: evYield},
	"yield+apart":         {kind: evYield, setApart: true},
	"quiescent":           {kind: evQuiescent},
	"finish":              {kind: evFinish},
	"grace":               {kind: evGraceExpired},
	"terminate(t)":        {kind: evTerminate, terminator: lcTerm2},
	"interrupt":           {kind: evInterrupt},
	"reclaim":             {kind: evReclaim},
	"detach(w)":           {kind: evDetach, obs: lcWait},
	"detach(p)":           {kind: evDetach, obs: lcPending},
	"detach(x)":           {kind: evDetach, obs: lcOther},
	"detachTerminator(t)": {kind: evDetachTerminator, terminator: lcTerm},
	"detachTerminator(u)": {kind: evDetachTerminator, terminator: lcTerm2},
	"close":               {kind: evClose},
}

var lcPhases = map[cellState]string{
	cellRunning: "running", cellCompleted: "completed", cellTerminating: "terminating",
	cellDelivering: "delivering", cellClosed: "closed",
}

// describe writes a lifecycle as a line of the table: its phase, its flags, its observer and
// terminator.
func (l cellLifecycle) describe() string {
	parts := []string{lcPhases[l.phase]}
	for _, f := range []struct {
		on   bool
		name string
	}{{l.started, "started"}, {l.observed, "observed"}, {l.pendingMode, "pendingMode"}, {l.paused, "paused"}, {l.frontierReady, "frontierReady"}, {l.armed, "armed"}} {
		if f.on {
			parts = append(parts, f.name)
		}
	}
	if l.observer != nil {
		parts = append(parts, "observer="+lcName(l.observer))
	}
	if l.terminator != nil {
		parts = append(parts, "terminator="+lcName(l.terminator))
	}
	return strings.Join(parts, " ")
}

var (
	lcEffectNames = map[effectKind]string{
		doServe: "serve", doDrop: "drop", doArm: "arm", doAttached: "attached", doWakeLoop: "wakeLoop",
		doStop: "stop", doClose: "close", doMarkYield: "markYield", doCommit: "commit",
		doKeepResult: "keepResult", doClaim: "claim", doAnswerTerminator: "answer", doDiscard: "discard",
	}
	lcServings = map[serving]string{
		serveSetApart: "setApart", serveSoFar: "soFar", serveFrontier: "frontier", serveClaimed: "claimed",
		serveResult: "result", serveTerminated: "terminated", serveTerminatedEmpty: "terminatedEmpty",
	}
	lcRefusals = map[refusal]string{refusedMissing: "missing", refusedObserved: "observed", refusedTerminating: "terminating"}
	lcIdle     = map[idleChange]string{idleRecord: "record", idleForget: "forget", idleRestart: "restart"}
)

// describe writes effects as a line of the table, in order, then the answers.
func (fx effects) describe() string {
	var parts []string
	for _, e := range fx.steps() {
		s := lcEffectNames[e.kind]
		switch {
		case e.kind == doServe:
			s += "(" + lcName(e.obs) + "," + lcServings[e.what] + ")"
		case e.obs != nil:
			s += "(" + lcName(e.obs) + ")"
		case e.terminator != nil:
			s += "(" + lcName(e.terminator) + ")"
		}
		parts = append(parts, s)
	}
	if fx.refused != 0 {
		parts = append(parts, "refused:"+lcRefusals[fx.refused])
	}
	if fx.pause {
		parts = append(parts, "pause")
	}
	if fx.dropped {
		parts = append(parts, "dropped")
	}
	if fx.idle != 0 {
		parts = append(parts, "idle:"+lcIdle[fx.idle])
	}
	return strings.Join(parts, " ")
}

// lcTransition is a row of the table: in state from, event leaves the lifecycle as to and has
// effects.
type lcTransition struct{ from, event, to, effects string }

// TestCellLifecycleTransitions runs every event in every state and checks it against the table;
// a pair the table does not list must change nothing.
func TestCellLifecycleTransitions(t *testing.T) {
	listed := map[[2]string]lcTransition{}
	for _, tr := range lcTable {
		key := [2]string{tr.from, tr.event}
		if _, dup := listed[key]; dup {
			t.Fatalf("the table lists %v twice", key)
		}
		if _, ok := lcStates[tr.from]; !ok {
			t.Fatalf("unknown state %q", tr.from)
		}
		if _, ok := lcEvents[tr.event]; !ok {
			t.Fatalf("unknown event %q", tr.event)
		}
		listed[key] = tr
	}
	var dump []string
	for _, from := range sortedKeys(lcStates) {
		for _, name := range sortedKeys(lcEvents) {
			l := lcStates[from]
			before := l.describe()
			fx := l.apply(lcEvents[name])
			got := lcTransition{from, name, l.describe(), fx.describe()}
			want, ok := listed[[2]string{from, name}]
			if !ok {
				want = lcTransition{from, name, before, ""}
			}
			if got != want {
				t.Errorf("%s + %s:\n got  %q / %q\n want %q / %q", from, name, got.to, got.effects, want.to, want.effects)
			}
			if got.to != before || got.effects != "" {
				dump = append(dump, fmt.Sprintf("\t{%q, %q, %q, %q},", from, name, got.to, got.effects))
			}
		}
	}
	if path := os.Getenv("CELLLIFE_DUMP"); path != "" {
		_ = os.WriteFile(path, []byte(strings.Join(dump, "\n")+"\n"), 0o644)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// lcTable is every transition that changes the lifecycle or has an effect.
var lcTable = []lcTransition{
	// from, event, to, effects (in order; then the answers and the idle table's change)
	{"admitted", "attach(p)", "running observed observer=i", "refused:observed"},
	{"admitted", "attach(p)+apart", "running observed observer=i", "refused:observed"},
	{"admitted", "attach(w)", "running observed observer=i", "refused:observed"},
	{"admitted", "attach(w)+apart", "running observed observer=i", "refused:observed"},
	{"admitted", "attach(z)", "running observed observer=i", "refused:observed"},
	{"admitted", "close", "closed observed observer=i", ""},
	{"admitted", "deadline(i)", "running observed", "drop(i) serve(i,soFar) idle:record"},
	{"admitted", "finish", "delivering observed", "commit drop(i) serve(i,result) close"},
	{"admitted", "interrupt", "terminating observed observer=i", "stop"},
	{"admitted", "started", "running started observed armed observer=i", "arm(i)"},
	{"admitted", "terminate(t)", "terminating observed observer=i terminator=u", "stop"},
	{"admitted", "yield", "running observed", "drop(i) serve(i,soFar) idle:record"},
	{"admitted", "yield+apart", "running observed", "drop(i) serve(i,soFar) idle:record"},
	{"admitted-alone", "attach(p)", "running observed pendingMode observer=p", "attached wakeLoop idle:restart"},
	{"admitted-alone", "attach(p)+apart", "running observed pendingMode observer=p", "attached wakeLoop idle:restart"},
	{"admitted-alone", "attach(w)", "running observed observer=w", "attached idle:restart"},
	{"admitted-alone", "attach(w)+apart", "running observed", "serve(w,setApart) idle:restart"},
	{"admitted-alone", "attach(z)", "running observed", "serve(z,soFar) idle:restart"},
	{"admitted-alone", "close", "closed pendingMode", "idle:forget"},
	{"admitted-alone", "finish", "completed pendingMode", "commit keepResult"},
	{"admitted-alone", "interrupt", "terminating pendingMode", "stop idle:forget"},
	{"admitted-alone", "quiescent", "running pendingMode paused frontierReady", "pause"},
	{"admitted-alone", "reclaim", "terminating pendingMode", "stop idle:forget"},
	{"admitted-alone", "started", "running started pendingMode", ""},
	{"admitted-alone", "terminate(t)", "terminating pendingMode terminator=u", "stop idle:forget"},
	{"admitted-alone", "yield", "running pendingMode", "markYield"},
	{"admitted-now", "attach(p)", "running observed observer=n", "refused:observed"},
	{"admitted-now", "attach(p)+apart", "running observed observer=n", "refused:observed"},
	{"admitted-now", "attach(w)", "running observed observer=n", "refused:observed"},
	{"admitted-now", "attach(w)+apart", "running observed observer=n", "refused:observed"},
	{"admitted-now", "attach(z)", "running observed observer=n", "refused:observed"},
	{"admitted-now", "close", "closed observed observer=n", ""},
	{"admitted-now", "finish", "delivering observed", "commit drop(n) serve(n,result) close"},
	{"admitted-now", "interrupt", "terminating observed observer=n", "stop"},
	{"admitted-now", "started", "running started observed", "drop(n) serve(n,soFar) idle:record"},
	{"admitted-now", "terminate(t)", "terminating observed observer=n terminator=u", "stop"},
	{"admitted-now", "yield", "running observed", "drop(n) serve(n,soFar) idle:record"},
	{"admitted-now", "yield+apart", "running observed", "drop(n) serve(n,soFar) idle:record"},
	{"admitted-pending", "attach(p)", "running observed pendingMode observer=p", "refused:observed"},
	{"admitted-pending", "attach(p)+apart", "running observed pendingMode observer=p", "refused:observed"},
	{"admitted-pending", "attach(w)", "running observed pendingMode observer=p", "refused:observed"},
	{"admitted-pending", "attach(w)+apart", "running observed pendingMode observer=p", "refused:observed"},
	{"admitted-pending", "attach(z)", "running observed pendingMode observer=p", "refused:observed"},
	{"admitted-pending", "close", "closed observed pendingMode observer=p", ""},
	{"admitted-pending", "detach(p)", "running observed pendingMode", "drop(p) dropped idle:record"},
	{"admitted-pending", "finish", "delivering observed pendingMode", "commit drop(p) serve(p,result)"},
	{"admitted-pending", "interrupt", "terminating observed pendingMode observer=p", "stop"},
	{"admitted-pending", "quiescent", "running observed pendingMode paused", "drop(p) serve(p,frontier) pause idle:record"},
	{"admitted-pending", "started", "running started observed pendingMode observer=p", ""},
	{"admitted-pending", "terminate(t)", "terminating observed pendingMode observer=p terminator=u", "stop"},
	{"closed", "attach(p)", "closed started observed", "refused:missing"},
	{"closed", "attach(p)+apart", "closed started observed", "refused:missing"},
	{"closed", "attach(w)", "closed started observed", "refused:missing"},
	{"closed", "attach(w)+apart", "closed started observed", "refused:missing"},
	{"closed", "attach(z)", "closed started observed", "refused:missing"},
	{"closed", "terminate(t)", "closed started observed", "refused:missing"},
	{"completed", "attach(p)", "delivering started observed", "serve(p,claimed) idle:restart"},
	{"completed", "attach(p)+apart", "delivering started observed", "serve(p,claimed) idle:restart"},
	{"completed", "attach(w)", "delivering started observed", "serve(w,claimed) idle:restart"},
	{"completed", "attach(w)+apart", "completed started observed", "serve(w,setApart) idle:restart"},
	{"completed", "attach(z)", "delivering started observed", "serve(z,claimed) idle:restart"},
	{"completed", "close", "closed started observed", "idle:forget"},
	{"completed", "interrupt", "delivering started observed", "close idle:forget"},
	{"completed", "reclaim", "delivering started observed", "close idle:forget"},
	{"completed", "terminate(t)", "delivering started observed", "claim idle:forget"},
	{"delivering", "attach(p)", "delivering started observed", "refused:missing"},
	{"delivering", "attach(p)+apart", "delivering started observed", "refused:missing"},
	{"delivering", "attach(w)", "delivering started observed", "refused:missing"},
	{"delivering", "attach(w)+apart", "delivering started observed", "refused:missing"},
	{"delivering", "attach(z)", "delivering started observed", "refused:missing"},
	{"delivering", "close", "closed started observed", ""},
	{"delivering", "terminate(t)", "delivering started observed", "refused:missing"},
	{"fresh", "attach(p)", "running started observed pendingMode observer=p", "attached wakeLoop idle:restart"},
	{"fresh", "attach(p)+apart", "running started observed pendingMode observer=p", "attached wakeLoop idle:restart"},
	{"fresh", "attach(w)", "running started observed armed observer=w", "attached arm(w) idle:restart"},
	{"fresh", "attach(w)+apart", "running started observed", "serve(w,setApart) idle:restart"},
	{"fresh", "attach(z)", "running started observed", "serve(z,soFar) idle:restart"},
	{"fresh", "close", "closed started", "idle:forget"},
	{"fresh", "finish", "completed started", "commit keepResult"},
	{"fresh", "interrupt", "terminating started", "stop idle:forget"},
	{"fresh", "reclaim", "terminating started", "stop idle:forget"},
	{"fresh", "terminate(t)", "terminating started terminator=u", "stop idle:forget"},
	{"fresh", "yield", "running started", "markYield"},
	{"paused", "attach(p)", "running started observed pendingMode paused", "serve(p,frontier) idle:restart"},
	{"paused", "attach(p)+apart", "running started observed pendingMode paused", "serve(p,frontier) idle:restart"},
	{"paused", "attach(w)", "running started observed armed observer=w", "wakeLoop attached arm(w) idle:restart"},
	{"paused", "attach(w)+apart", "running started observed", "wakeLoop serve(w,setApart) idle:restart"},
	{"paused", "attach(z)", "running started observed", "wakeLoop serve(z,soFar) idle:restart"},
	{"paused", "close", "closed started observed pendingMode paused frontierReady", "idle:forget"},
	{"paused", "finish", "completed started observed pendingMode paused frontierReady", "commit keepResult"},
	{"paused", "interrupt", "terminating started observed pendingMode paused frontierReady", "stop idle:forget"},
	{"paused", "quiescent", "running started observed pendingMode paused frontierReady", "pause"},
	{"paused", "reclaim", "terminating started observed pendingMode paused frontierReady", "stop idle:forget"},
	{"paused", "terminate(t)", "terminating started observed pendingMode paused frontierReady terminator=u", "stop idle:forget"},
	{"pending", "attach(p)", "running started observed pendingMode observer=p", "refused:observed"},
	{"pending", "attach(p)+apart", "running started observed pendingMode observer=p", "refused:observed"},
	{"pending", "attach(w)", "running started observed pendingMode observer=p", "refused:observed"},
	{"pending", "attach(w)+apart", "running started observed pendingMode observer=p", "refused:observed"},
	{"pending", "attach(z)", "running started observed pendingMode observer=p", "refused:observed"},
	{"pending", "close", "closed started observed pendingMode observer=p", ""},
	{"pending", "detach(p)", "running started observed pendingMode", "drop(p) dropped idle:record"},
	{"pending", "finish", "delivering started observed pendingMode", "commit drop(p) serve(p,result)"},
	{"pending", "interrupt", "terminating started observed pendingMode observer=p", "stop"},
	{"pending", "quiescent", "running started observed pendingMode paused", "drop(p) serve(p,frontier) pause idle:record"},
	{"pending", "terminate(t)", "terminating started observed pendingMode observer=p terminator=u", "stop"},
	{"terminating", "attach(p)", "terminating started observed observer=p", "attached idle:restart"},
	{"terminating", "attach(p)+apart", "terminating started observed observer=p", "attached idle:restart"},
	{"terminating", "attach(w)", "terminating started observed observer=w", "attached idle:restart"},
	{"terminating", "attach(w)+apart", "terminating started observed observer=w", "attached idle:restart"},
	{"terminating", "attach(z)", "terminating started observed observer=z", "attached idle:restart"},
	{"terminating", "close", "closed started observed", ""},
	{"terminating", "finish", "delivering started observed", "discard close"},
	{"terminating", "grace", "delivering started observed", "discard close"},
	{"terminating", "terminate(t)", "terminating started observed", "refused:terminating"},
	{"terminating-both", "attach(p)", "terminating started observed armed observer=w terminator=t", "refused:observed"},
	{"terminating-both", "attach(p)+apart", "terminating started observed armed observer=w terminator=t", "refused:observed"},
	{"terminating-both", "attach(w)", "terminating started observed armed observer=w terminator=t", "refused:observed"},
	{"terminating-both", "attach(w)+apart", "terminating started observed armed observer=w terminator=t", "refused:observed"},
	{"terminating-both", "attach(z)", "terminating started observed armed observer=w terminator=t", "refused:observed"},
	{"terminating-both", "close", "closed started observed armed observer=w terminator=t", ""},
	{"terminating-both", "detach(w)", "terminating started observed terminator=t", "drop(w) dropped"},
	{"terminating-both", "detachTerminator(t)", "terminating started observed armed observer=w", "dropped"},
	{"terminating-both", "finish", "delivering started observed", "drop(w) serve(w,terminatedEmpty) answer(t)"},
	{"terminating-both", "grace", "delivering started observed", "drop(w) serve(w,terminatedEmpty) answer(t)"},
	{"terminating-both", "terminate(t)", "terminating started observed armed observer=w terminator=t", "refused:terminating"},
	{"terminating-claimed", "attach(p)", "terminating started observed observer=p terminator=t", "attached idle:restart"},
	{"terminating-claimed", "attach(p)+apart", "terminating started observed observer=p terminator=t", "attached idle:restart"},
	{"terminating-claimed", "attach(w)", "terminating started observed observer=w terminator=t", "attached idle:restart"},
	{"terminating-claimed", "attach(w)+apart", "terminating started observed observer=w terminator=t", "attached idle:restart"},
	{"terminating-claimed", "attach(z)", "terminating started observed observer=z terminator=t", "attached idle:restart"},
	{"terminating-claimed", "close", "closed started observed terminator=t", ""},
	{"terminating-claimed", "detachTerminator(t)", "terminating started observed", "dropped"},
	{"terminating-claimed", "finish", "delivering started observed", "answer(t)"},
	{"terminating-claimed", "grace", "delivering started observed", "answer(t)"},
	{"terminating-claimed", "terminate(t)", "terminating started observed terminator=t", "refused:terminating"},
	{"terminating-initial", "attach(p)", "terminating started observed armed observer=i", "refused:observed"},
	{"terminating-initial", "attach(p)+apart", "terminating started observed armed observer=i", "refused:observed"},
	{"terminating-initial", "attach(w)", "terminating started observed armed observer=i", "refused:observed"},
	{"terminating-initial", "attach(w)+apart", "terminating started observed armed observer=i", "refused:observed"},
	{"terminating-initial", "attach(z)", "terminating started observed armed observer=i", "refused:observed"},
	{"terminating-initial", "close", "closed started observed armed observer=i", ""},
	{"terminating-initial", "finish", "delivering started observed", "drop(i) serve(i,terminated) close"},
	{"terminating-initial", "grace", "delivering started observed", "drop(i) serve(i,terminated) close"},
	{"terminating-initial", "terminate(t)", "terminating started observed armed observer=i", "refused:terminating"},
	{"terminating-observed", "attach(p)", "terminating started observed armed observer=w", "refused:observed"},
	{"terminating-observed", "attach(p)+apart", "terminating started observed armed observer=w", "refused:observed"},
	{"terminating-observed", "attach(w)", "terminating started observed armed observer=w", "refused:observed"},
	{"terminating-observed", "attach(w)+apart", "terminating started observed armed observer=w", "refused:observed"},
	{"terminating-observed", "attach(z)", "terminating started observed armed observer=w", "refused:observed"},
	{"terminating-observed", "close", "closed started observed armed observer=w", ""},
	{"terminating-observed", "detach(w)", "terminating started observed", "drop(w) dropped"},
	{"terminating-observed", "finish", "delivering started observed", "drop(w) serve(w,terminated)"},
	{"terminating-observed", "grace", "delivering started observed", "drop(w) serve(w,terminated)"},
	{"terminating-observed", "terminate(t)", "terminating started observed armed observer=w", "refused:terminating"},
	{"waited", "attach(p)", "running started observed armed observer=w", "refused:observed"},
	{"waited", "attach(p)+apart", "running started observed armed observer=w", "refused:observed"},
	{"waited", "attach(w)", "running started observed armed observer=w", "refused:observed"},
	{"waited", "attach(w)+apart", "running started observed armed observer=w", "refused:observed"},
	{"waited", "attach(z)", "running started observed armed observer=w", "refused:observed"},
	{"waited", "close", "closed started observed armed observer=w", ""},
	{"waited", "deadline(w)", "running started observed", "drop(w) serve(w,soFar) idle:record"},
	{"waited", "detach(w)", "running started observed", "drop(w) dropped idle:record"},
	{"waited", "finish", "delivering started observed", "commit drop(w) serve(w,result)"},
	{"waited", "interrupt", "terminating started observed armed observer=w", "stop"},
	{"waited", "terminate(t)", "terminating started observed armed observer=w terminator=u", "stop"},
	{"waited", "yield", "running started observed", "drop(w) serve(w,soFar) idle:record"},
	{"waited", "yield+apart", "running started observed", "drop(w) serve(w,soFar) idle:record"},
	{"yielded", "attach(p)", "running started observed pendingMode observer=p", "attached wakeLoop idle:restart"},
	{"yielded", "attach(p)+apart", "running started observed pendingMode observer=p", "attached wakeLoop idle:restart"},
	{"yielded", "attach(w)", "running started observed armed observer=w", "attached arm(w) idle:restart"},
	{"yielded", "attach(w)+apart", "running started observed", "serve(w,setApart) idle:restart"},
	{"yielded", "attach(z)", "running started observed", "serve(z,soFar) idle:restart"},
	{"yielded", "close", "closed started observed", "idle:forget"},
	{"yielded", "finish", "completed started observed", "commit keepResult"},
	{"yielded", "interrupt", "terminating started observed", "stop idle:forget"},
	{"yielded", "reclaim", "terminating started observed", "stop idle:forget"},
	{"yielded", "terminate(t)", "terminating started observed terminator=u", "stop idle:forget"},
}

// TestCellLifecycleInvariants checks, over every event in every state, the rules the session's
// executor relies on: an observer served is no longer registered, a registered observer that
// leaves is dropped first, an observer is only registered on a running or terminating cell, and
// the idle table's change agrees with whether the cell is unobserved afterwards.
func TestCellLifecycleInvariants(t *testing.T) {
	for _, from := range sortedKeys(lcStates) {
		for _, name := range sortedKeys(lcEvents) {
			l := lcStates[from]
			was := l.observer
			fx := l.apply(lcEvents[name])
			dropped := false
			for _, e := range fx.steps() {
				switch e.kind {
				case doDrop:
					dropped = dropped || e.obs == was
				case doServe:
					if e.obs == l.observer {
						t.Errorf("%s + %s serves its registered observer", from, name)
					}
					if e.obs == was && !dropped {
						t.Errorf("%s + %s serves its observer before dropping it", from, name)
					}
				}
			}
			// (close follows the delivery of a terminal response, when no observer is left; the
			// lifecycle records it in any state, as it did before it was a state machine.)
			if l.observer != nil && l.phase != cellRunning && l.phase != cellTerminating && name != "close" {
				t.Errorf("%s + %s leaves an observer on a %s cell", from, name, lcPhases[l.phase])
			}
			switch {
			case fx.idle == idleRecord && !l.unobserved(), fx.idle == idleForget && l.unobserved():
				t.Errorf("%s + %s: idle %s disagrees with the lifecycle", from, name, lcIdle[fx.idle])
			}
		}
	}
}
