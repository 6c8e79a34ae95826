package mcpserver

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/internal/recent"
	"github.com/codemodehq/codemode/pkg/toolsources/toolprovider"
)

// sessionDelegate is the codemode.BlockingDelegate of one client session (its session gets
// codemode.FromBlocking of it): the tool sets' calls (through a toolprovider.Delegate), reported
// as progress to the request observing the calling cell, and notify() texts as progress.
//
// A cell runs, and may call tools, before Execute has returned its ID. So execs are admitted
// one at a time (admit), and a callback from a cell whose ID is not known yet comes from the
// cell being admitted: it goes to that exec's observer.
type sessionDelegate struct {
	*toolprovider.Delegate

	// admitting serializes Execute calls.
	admitting sync.Mutex

	mu sync.Mutex
	// known are the cells Execute returned and that are not closed yet.
	known map[codemode.CellID]bool
	// started are the cells Execute returned, closed or not (the last recent.Limit): a wait for
	// a missing cell says whether it ended or was never this session's.
	started recent.Set[codemode.CellID]
	// byCell is the observer of each observed cell.
	byCell map[codemode.CellID]*observer
	// pending is the observer of the exec being admitted (nil: none, or no progress token).
	pending *observer
}

var _ codemode.BlockingDelegate = (*sessionDelegate)(nil)

func newSessionDelegate(sets []toolprovider.ToolSet) (*sessionDelegate, error) {
	d := &sessionDelegate{known: map[codemode.CellID]bool{}, byCell: map[codemode.CellID]*observer{}}
	inner, err := toolprovider.NewDelegate(d.notify, sets...)
	if err != nil {
		return nil, err
	}
	d.Delegate = inner
	return d, nil
}

// InvokeTool runs the call and reports its return as progress.
func (d *sessionDelegate) InvokeTool(ctx context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	result, err := d.Delegate.InvokeTool(ctx, call)
	if o := d.observerOf(call.CellID); o != nil {
		outcome := "returned"
		if err != nil {
			outcome = "failed"
		}
		o.progress("tool " + call.ToolName.String() + " " + outcome)
	}
	return result, err
}

// notify reports a notify() text as progress of the observing request. (MCP's log messages,
// deprecated by SEP-2577, are not used.)
func (d *sessionDelegate) notify(_ context.Context, _ string, cellID codemode.CellID, text string) error {
	if o := d.observerOf(cellID); o != nil {
		o.progress(text)
	}
	return nil
}

// CellClosed forgets the cell.
func (d *sessionDelegate) CellClosed(id codemode.CellID) {
	d.mu.Lock()
	delete(d.known, id)
	d.mu.Unlock()
}

// observerOf returns the observer of the cell id: its watcher, or for a cell not admitted yet
// the exec admitting it.
func (d *sessionDelegate) observerOf(id codemode.CellID) *observer {
	d.mu.Lock()
	defer d.mu.Unlock()
	if o := d.byCell[id]; o != nil {
		return o
	}
	if !d.known[id] {
		return d.pending
	}
	return nil
}

// admit runs execute (one Execute call) with o observing the cell it admits, and keeps o as the
// cell's observer until unwatchCell.
func (d *sessionDelegate) admit(o *observer, execute func() (*codemode.StartedCell, error)) (*codemode.StartedCell, error) {
	d.admitting.Lock()
	defer d.admitting.Unlock()
	d.mu.Lock()
	d.pending = o
	d.mu.Unlock()
	cell, err := execute()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pending = nil
	if err == nil {
		d.known[cell.CellID] = true
		d.started.Remember(cell.CellID)
		if o != nil {
			d.byCell[cell.CellID] = o
		}
	}
	return cell, err
}

// startedHere reports whether an exec of this session started the cell id (one of the last
// recent.Limit cells).
func (d *sessionDelegate) startedHere(id codemode.CellID) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.started.Contains(id)
}

// watchCell makes o the observer of the cell id until unwatchCell.
func (d *sessionDelegate) watchCell(id codemode.CellID, o *observer) {
	if o == nil {
		return
	}
	d.mu.Lock()
	d.byCell[id] = o
	d.mu.Unlock()
}

// unwatchCell ends o's observation of the cell id (a later observer stays).
func (d *sessionDelegate) unwatchCell(id codemode.CellID, o *observer) {
	d.mu.Lock()
	if d.byCell[id] == o {
		delete(d.byCell, id)
	}
	d.mu.Unlock()
}

// observer sends the progress notifications of one exec or wait request that carries a
// progress token.
type observer struct {
	ctx   context.Context
	ss    *mcp.ServerSession
	token any

	mu            sync.Mutex
	progressCount float64
	done          bool
}

// newObserver returns the observer of req, or nil when req carries no progress token.
func newObserver(ctx context.Context, req *mcp.CallToolRequest) *observer {
	token := req.Params.GetProgressToken()
	if token == nil {
		return nil
	}
	return &observer{ctx: ctx, ss: req.Session, token: token}
}

// progress sends one progress notification with message, unless the request has been answered.
func (o *observer) progress(message string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done {
		return
	}
	o.progressCount++
	_ = o.ss.NotifyProgress(o.ctx, &mcp.ProgressNotificationParams{ProgressToken: o.token, Progress: o.progressCount, Message: message})
}

// finish stops the notifications: the request is being answered.
func (o *observer) finish() {
	if o == nil {
		return
	}
	o.mu.Lock()
	o.done = true
	o.mu.Unlock()
}
