package mcpserver

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/toolprovider"
)

// sessionDelegate is the codemode.Delegate of one client session: the tool sets' calls (through
// a toolprovider.Delegate), reported as progress to the request observing the calling cell, and
// notify() texts as progress and log messages.
type sessionDelegate struct {
	*toolprovider.Delegate
	ss *mcp.ServerSession

	mu sync.Mutex
	// byCell is the observer of each observed cell; byCall the observer of an exec whose cell
	// ID is not known yet (notify() names both).
	byCell map[codemode.CellID]*observer
	byCall map[string]*observer
}

var _ codemode.Delegate = (*sessionDelegate)(nil)

func newSessionDelegate(ss *mcp.ServerSession, sets []toolprovider.ToolSet) (*sessionDelegate, error) {
	d := &sessionDelegate{ss: ss, byCell: map[codemode.CellID]*observer{}, byCall: map[string]*observer{}}
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
	if o := d.observerOf(call.CellID, ""); o != nil {
		outcome := "returned"
		if err != nil {
			outcome = "failed"
		}
		o.progress("tool " + call.ToolName.String() + " " + outcome)
	}
	return result, err
}

// notify reports a notify() text as progress of the observing request and as a log message.
func (d *sessionDelegate) notify(ctx context.Context, callID string, cellID codemode.CellID, text string) error {
	if o := d.observerOf(cellID, callID); o != nil {
		o.progress(text)
	}
	_ = d.ss.Log(ctx, &mcp.LoggingMessageParams{
		Level:  "info",
		Logger: ServerName,
		Data:   map[string]string{"cell_id": cellID.String(), "notify": text},
	})
	return nil
}

func (d *sessionDelegate) observerOf(cellID codemode.CellID, callID string) *observer {
	d.mu.Lock()
	defer d.mu.Unlock()
	if o := d.byCell[cellID]; o != nil {
		return o
	}
	return d.byCall[callID]
}

// watchCall makes o the observer of the exec call callID until unwatchCall.
func (d *sessionDelegate) watchCall(callID string, o *observer) {
	if o == nil {
		return
	}
	d.mu.Lock()
	d.byCall[callID] = o
	d.mu.Unlock()
}

func (d *sessionDelegate) unwatchCall(callID string) {
	d.mu.Lock()
	delete(d.byCall, callID)
	d.mu.Unlock()
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
