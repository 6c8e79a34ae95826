package hostv1

import (
	"testing"

	"github.com/codemodehq/codemode/gen/go/wirev1"
)

func TestSmokeExecute(t *testing.T) {
	c := serveRaw(t, New(newProvider(t), WithGeneration(wirev1.GenerationBaseline))).ready()
	c.send(`{"type":"operation/request","id":1,"request":{"method":"session/open","sessionId":"s"}}`)
	c.expect(`{"type":"operation/response","id":1,"result":{"status":"ok","value":{"type":"session/ready","sessionId":"s"}}}`)
	c.send(`{"type":"operation/request","id":2,"request":{"method":"session/execute","sessionId":"s","request":{"tool_call_id":"c","enabled_tools":[],"source":"text('hi')","yield_time_ms":null,"max_output_tokens":null}}}`)
	c.expect(`{"type":"operation/response","id":2,"result":{"status":"ok","value":{"type":"execution/started","cellId":"1"}}}`)
	c.expect(`{"type":"execute/initialResponse","id":2,"result":{"status":"ok","value":{"Result":{"cell_id":"1","content_items":[{"type":"input_text","text":"hi"}],"error_text":null}}}}`)
	c.expect(`{"type":"cell/closed","sessionId":"s","cellId":"1"}`)
	c.send(`{"type":"operation/request","id":3,"request":{"method":"session/shutdown","sessionId":"s"}}`)
	c.expect(`{"type":"operation/response","id":3,"result":{"status":"ok","value":{"type":"session/closed","sessionId":"s"}}}`)
	if err := c.serveResult(); err != nil {
		t.Fatal(err)
	}
}
