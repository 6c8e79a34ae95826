package grpcconv

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
)

// MaxToolFilters bounds the tool names of one subscription.
const MaxToolFilters = 64

// Check applies to a decoded message what its receiving peer refuses after a successful decode,
// with that peer's texts: the host's checks for what clients send, the client's checks for what
// hosts send. Lookups that need a live session (an unknown session or invocation) are not part
// of it. Messages without semantic rules pass.
func Check(m proto.Message) error {
	switch v := m.(type) {
	// What clients send, checked as the host does (the session lookup aside).
	case *pb.ExecuteRequest:
		return checkExecuteRequest(v)
	case *pb.WaitRequest:
		return firstError(checkSession(v.GetSessionId()), CheckIdentifier(v.GetCellId(), "cell ID"), CheckIdentifier(v.GetWaitId(), "wait ID"))
	case *pb.CancelWaitRequest:
		return firstError(checkSession(v.GetSessionId()), CheckIdentifier(v.GetWaitId(), "wait ID"))
	case *pb.TerminateRequest:
		return firstError(checkSession(v.GetSessionId()), CheckIdentifier(v.GetCellId(), "cell ID"))
	case *pb.CloseSessionRequest:
		return checkSession(v.GetSessionId())
	case *pb.SubscribeToToolCallsRequest:
		return firstError(checkSession(v.GetSessionId()), CheckToolFilters(v.GetToolNames()))
	case *pb.CompleteToolCallRequest:
		return checkCompleteRequest(v)
	case *pb.AcknowledgeNotificationRequest:
		return firstError(checkSession(v.GetSessionId()), checkUUID(v.GetNotificationId(), "notification ID"))
	case *pb.ToolDefinition:
		_, err := ToolDefinitionFromProto(v)
		return err
	// What hosts send, checked as the client does.
	case *pb.SessionEvent:
		return checkSessionEvent(v)
	case *pb.SessionOpened:
		return CheckHostIdentifier(v.GetSessionId(), "session ID")
	case *pb.ExecuteEvent:
		return checkExecuteEvent(v)
	case *pb.ExecutionStarted:
		return checkStarted(v)
	case *pb.ExecutionOutcome:
		_, err := RuntimeResponseFromProto(v)
		return err
	case *pb.WaitResponse:
		_, err := WaitOutcomeFromProto(v)
		return err
	case *pb.ContentItem:
		_, err := ContentItemFromProto(v)
		return err
	case *pb.ToolCall:
		return checkToolCall(v)
	case *pb.Notification:
		return checkNotification(v)
	case *pb.CellClosed:
		return CheckHostIdentifier(v.GetCellId(), "cell ID")
	case *pb.ToolCallCancelled:
		return checkCallbackUUID(v.GetInvocationId(), "tool invocation ID")
	}
	return nil
}

func checkSession(id string) error {
	return checkUUID(id, "session ID")
}

// checkUUID is CheckUUID without the parsed value.
func checkUUID(value, field string) error {
	_, err := CheckUUID(value, field)
	return err
}

func checkExecuteRequest(r *pb.ExecuteRequest) error {
	if err := checkSession(r.GetSessionId()); err != nil {
		return err
	}
	if err := CheckIdentifier(r.GetExecutionId(), "execution ID"); err != nil {
		return err
	}
	_, err := ExecuteRequestFromProto(r)
	return err
}

// CheckToolFilters is the host's rule for a subscription's filters: at most MaxToolFilters, each
// a valid tool name.
func CheckToolFilters(filters []*pb.ToolName) error {
	if len(filters) > MaxToolFilters {
		return fmt.Errorf("code-mode tool subscription exceeds %d filters", MaxToolFilters)
	}
	for _, f := range filters {
		if err := CheckToolName(f); err != nil {
			return err
		}
	}
	return nil
}

func checkCompleteRequest(r *pb.CompleteToolCallRequest) error {
	if err := checkSession(r.GetSessionId()); err != nil {
		return err
	}
	if err := checkUUID(r.GetInvocationId(), "tool invocation ID"); err != nil {
		return err
	}
	_, err := ToolResultFromProto(r)
	return err
}

func checkSessionEvent(e *pb.SessionEvent) error {
	switch v := e.GetEvent().(type) {
	case *pb.SessionEvent_Opened:
		return CheckHostIdentifier(v.Opened.GetSessionId(), "session ID")
	case *pb.SessionEvent_ToolCallCancelled:
		return checkCallbackUUID(v.ToolCallCancelled.GetInvocationId(), "tool invocation ID")
	case *pb.SessionEvent_Notification:
		return checkNotification(v.Notification)
	case *pb.SessionEvent_NotificationCancelled:
		// Defined, never emitted by the baseline host, ignored by the client.
		return nil
	case *pb.SessionEvent_CellClosed:
		return CheckHostIdentifier(v.CellClosed.GetCellId(), "cell ID")
	default:
		return errors.New("gRPC code-mode host sent an empty session event")
	}
}

// checkExecuteEvent refuses an empty event with the text Codex's client gives any event that is
// neither the expected started nor the outcome.
func checkExecuteEvent(e *pb.ExecuteEvent) error {
	switch v := e.GetEvent().(type) {
	case *pb.ExecuteEvent_Started:
		return checkStarted(v.Started)
	case *pb.ExecuteEvent_Outcome:
		_, err := RuntimeResponseFromProto(v.Outcome)
		return err
	default:
		return errors.New("gRPC code-mode execution returned an unexpected event")
	}
}

func checkStarted(s *pb.ExecutionStarted) error {
	return firstError(CheckHostIdentifier(s.GetExecutionId(), "execution ID"), CheckHostIdentifier(s.GetCellId(), "cell ID"))
}

func checkToolCall(c *pb.ToolCall) error {
	if err := checkCallbackUUID(c.GetInvocationId(), "tool invocation ID"); err != nil {
		return err
	}
	_, err := NestedToolCallFromProto(c)
	return err
}

func checkNotification(n *pb.Notification) error {
	if err := checkCallbackUUID(n.GetNotificationId(), "notification ID"); err != nil {
		return err
	}
	return CheckHostIdentifier(n.GetCallId(), "notification call ID")
}

// checkCallbackUUID is the client's rule for a host-generated callback ID: a UUID, whatever its
// length (the text does not distinguish).
func checkCallbackUUID(id, field string) error {
	if _, err := ParseCallbackUUID(id, field); err != nil {
		return err
	}
	return nil
}

// firstError returns the first non-nil error: the checks are listed in Codex's order, so a message
// with several faults gets the same text as from Codex's peer.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
