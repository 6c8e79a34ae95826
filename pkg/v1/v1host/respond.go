package v1host

import (
	"errors"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/v1/v1frame"
)

// respond answers request id with r, its final answer: the ID is retired into the history
// first, so that a client that sees the answer may rely on it. A response too large for a frame
// is replaced by an error response saying so (docs/protocol/v1.md#limits); the connection survives.
func (c *conn) respond(id wirev1.RequestId, r result) {
	c.state.finishRequest(id)
	c.respondKeepingID(id, r)
}

// respondKeepingID answers request id and leaves it active: an execute's started response.
func (c *conn) respondKeepingID(id wirev1.RequestId, r result) {
	var res wirev1.HostResponseResult = wirev1.HostResponseOk{Value: r.value}
	if r.err != nil {
		res = wirev1.HostResponseError{Message: r.err.Error()}
	}
	err := c.link.Send(c.ctx, wirev1.OperationResponse{Id: id, Result: res})
	if errors.Is(err, v1frame.ErrInvalidData) {
		c.send(wirev1.OperationResponse{Id: id, Result: wirev1.HostResponseError{
			Message: "code-mode host response exceeds the IPC frame limit: " + err.Error(),
		}})
	}
}

// respondError answers request id with an error text.
func (c *conn) respondError(id wirev1.RequestId, text string) {
	c.respond(id, result{err: errors.New(text)})
}

// sendInitialResult sends an execute's initial response, replaced by an error response when
// it does not fit a frame. It is the execute's final answer: the ID is retired first.
func (c *conn) sendInitialResult(id wirev1.RequestId, r wirev1.RuntimeResponseResult) {
	c.state.finishRequest(id)
	err := c.link.Send(c.ctx, wirev1.InitialResponse{Id: id, Result: r})
	if errors.Is(err, v1frame.ErrInvalidData) {
		c.send(wirev1.InitialResponse{Id: id, Result: wirev1.RuntimeResponseError{
			Message: "code-mode initial response exceeds the IPC frame limit: " + err.Error(),
		}})
	}
}

// send queues a message whose failure needs no handling beyond the connection's own: the
// connection is ending, and its teardown covers what the message would have said.
func (c *conn) send(m wirev1.HostToClient) {
	if err := c.link.Send(c.ctx, m); err != nil && errors.Is(err, v1frame.ErrInvalidData) {
		c.host.log.Error("code-mode host message does not fit a frame", "error", err)
	}
}
