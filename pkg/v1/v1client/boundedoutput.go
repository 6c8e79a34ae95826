package v1client

import "github.com/codemodehq/codemode/gen/go/wirev1"

// What the client does with what a host of wire generation bounded-output (Codex 0.169) grants:
// output truncated on the host to a wait's token budget, and yield observation.

// serverTruncation reports whether the connection's sessions truncate on the host.
func (c *connection) serverTruncation() bool { return c.opts.ServerTruncation && c.boundedOutput }

// waitBudget is a wait's maxOutputTokens: its budget when the host truncates, else none (a
// host of an earlier generation would refuse the field).
func (c *connection) waitBudget(budget *int) *wirev1.OutputTokenBudget {
	if !c.serverTruncation() || budget == nil {
		return nil
	}
	b := wirev1.OutputTokenBudget(max(*budget, 0))
	return &b
}

// watchYield sends operation/yield for request id when now is closed, until stop is closed. A
// host that did not grant yield-observation is never sent one (earlier generations refuse the
// message and end the connection).
func (c *connection) watchYield(id wirev1.RequestId, now <-chan struct{}, stop <-chan struct{}) {
	if now == nil || !c.yieldObservation {
		return
	}
	c.tasks.Add(1)
	go func() {
		defer c.tasks.Done()
		select {
		case <-now:
			_ = c.send(wirev1.OperationYield{Id: id})
		case <-stop:
		case <-c.ctx.Done():
		}
	}()
}
