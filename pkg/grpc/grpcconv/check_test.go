package grpcconv_test

import (
	"testing"

	"google.golang.org/protobuf/proto"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
)

// Check applies, per message type, the receiving peer's semantic rules.
func TestCheckAppliesTheReceivingPeersRules(t *testing.T) {
	const session = "6ba7b810-9dad-41d1-80b4-00c04fd430c8"
	yielded := &pb.ExecutionOutcome_Yielded{Yielded: &pb.ExecutionYielded{}}
	cases := []struct {
		label string
		msg   proto.Message
		text  string // "" = accepted
	}{
		{"execute request without a session", &pb.ExecuteRequest{}, "code-mode session ID must not be empty"},
		{"execute request with a bad session", &pb.ExecuteRequest{SessionId: "s"}, "code-mode session ID must be a UUID"},
		{"execute request without execution ID", &pb.ExecuteRequest{SessionId: session}, "code-mode execution ID must not be empty"},
		{"execute request without call ID", &pb.ExecuteRequest{SessionId: session, ExecutionId: "e"}, "code-mode tool call ID must not be empty"},
		{"valid execute request", &pb.ExecuteRequest{SessionId: session, ExecutionId: "e", ToolCallId: "c"}, ""},
		{"wait without wait ID", &pb.WaitRequest{SessionId: session, CellId: "1"}, "code-mode wait ID must not be empty"},
		{"cancel wait without wait ID", &pb.CancelWaitRequest{SessionId: session}, "code-mode wait ID must not be empty"},
		{"terminate without cell", &pb.TerminateRequest{SessionId: session}, "code-mode cell ID must not be empty"},
		{"close session with a bad session", &pb.CloseSessionRequest{SessionId: "x"}, "code-mode session ID must be a UUID"},
		{"subscribe with an empty filter", &pb.SubscribeToToolCallsRequest{SessionId: session, ToolNames: []*pb.ToolName{{}}}, "code-mode tool name must not be empty"},
		{"completion with a bad invocation", &pb.CompleteToolCallRequest{SessionId: session, InvocationId: "i"}, "code-mode tool invocation ID must be a UUID"},
		{"completion without outcome", &pb.CompleteToolCallRequest{SessionId: session, InvocationId: session}, "tool completion is missing its outcome"},
		{"ack with a bad notification", &pb.AcknowledgeNotificationRequest{SessionId: session, NotificationId: "n"}, "code-mode notification ID must be a UUID"},
		{"tool definition without kind", &pb.ToolDefinition{Name: "a", ToolName: &pb.ToolName{Name: "a"}}, "tool definition has an invalid kind"},
		{"empty session event", &pb.SessionEvent{}, "gRPC code-mode host sent an empty session event"},
		{"opened without ID", &pb.SessionEvent{Event: &pb.SessionEvent_Opened{Opened: &pb.SessionOpened{}}}, "gRPC code-mode host returned an empty session ID"},
		{"cancellation of a non-UUID", &pb.SessionEvent{Event: &pb.SessionEvent_ToolCallCancelled{ToolCallCancelled: &pb.ToolCallCancelled{InvocationId: "x"}}}, "code-mode tool invocation ID must be a UUID"},
		{"notification without call ID", &pb.Notification{NotificationId: session}, "gRPC code-mode host returned an empty notification call ID"},
		{"cell closed without cell", &pb.CellClosed{}, "gRPC code-mode host returned an empty cell ID"},
		{"empty execute event", &pb.ExecuteEvent{}, "gRPC code-mode execution returned an unexpected event"},
		{"started without execution ID", &pb.ExecuteEvent{Event: &pb.ExecuteEvent_Started{Started: &pb.ExecutionStarted{CellId: "1"}}}, "gRPC code-mode host returned an empty execution ID"},
		{"outcome event", &pb.ExecuteEvent{Event: &pb.ExecuteEvent_Outcome{Outcome: &pb.ExecutionOutcome{CellId: "1", Outcome: yielded}}}, ""},
		{"tool call with a bad invocation", &pb.ToolCall{InvocationId: "x"}, "code-mode tool invocation ID must be a UUID"},
		{"content item", &pb.ContentItem{}, "code-mode execution returned an empty content item"},
		{"message without rules", &pb.CloseSessionResponse{}, ""},
	}
	for _, c := range cases {
		err := grpcconv.Check(c.msg)
		if c.text == "" {
			if err != nil {
				t.Errorf("%s: %v, want accepted", c.label, err)
			}
			continue
		}
		if err == nil || err.Error() != c.text {
			t.Errorf("%s: %v, want exactly %q", c.label, err, c.text)
		}
	}
}
