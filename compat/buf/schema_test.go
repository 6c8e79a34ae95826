// Package bufcompat holds the gates of the gRPC schema: the committed buf image baseline
// (image.binpb, checked by tools/compat.sh) and this test, which pins the complete surface of
// codex.code_mode.v1 to the Codex protocol.
package bufcompat

import (
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"

	code_modev1 "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
)

// codexSurface is Codex's definition of codex.code_mode.v1 (docs/protocol/grpc.md#service and
// docs/protocol/grpc.md#messages, transcribed independently of the .proto): every RPC, message,
// field number, name, type, label, proto3 `optional` and oneof, and every enum value. buf breaking
// only rejects incompatible changes; this also rejects additions, which would make the schema
// differ from Codex's. The two fields of newer Codex that codemode adopts
// (docs/protocol/grpc.md#messages: ToolCall 10 traceparent, ExecutionOutcome 6
// code_mode_host_duration_ns) are part of the surface, and so is what Codex 0.169 added
// (docs/protocol/grpc.md#additions-of-codex-0169, field numbers and types observed on its host:
// OpenSessionRequest 2 and 3, SessionOpened 2, WaitRequest 5, TerminateRequest 3, the
// YieldObservation and GetProcessMetrics RPCs); the baseline's shape is the rest.
const codexSurface = `
service CodeModeHost
  rpc OpenSession(OpenSessionRequest) returns (stream SessionEvent)
  rpc CloseSession(CloseSessionRequest) returns (CloseSessionResponse)
  rpc SubscribeToToolCalls(SubscribeToToolCallsRequest) returns (stream ToolCall)
  rpc CompleteToolCall(CompleteToolCallRequest) returns (CompleteToolCallResponse)
  rpc AcknowledgeNotification(AcknowledgeNotificationRequest) returns (AcknowledgeNotificationResponse)
  rpc Execute(ExecuteRequest) returns (stream ExecuteEvent)
  rpc Wait(WaitRequest) returns (WaitResponse)
  rpc CancelWait(CancelWaitRequest) returns (CancelWaitResponse)
  rpc Terminate(TerminateRequest) returns (WaitResponse)
  rpc YieldObservation(YieldObservationRequest) returns (YieldObservationResponse)
  rpc GetProcessMetrics(GetProcessMetricsRequest) returns (GetProcessMetricsResponse)
message OpenSessionRequest
  1 cell_execution_limits SessionCellExecutionLimits optional
  2 output_truncation OutputTruncation
  3 max_pending_delegate_calls uint64 optional
message SessionCellExecutionLimits
  1 max_yield_time_ms uint64 optional
  2 max_heap_size_bytes uint64 optional
message SessionEvent
  1 opened SessionOpened oneof=event
  2 tool_call_cancelled ToolCallCancelled oneof=event
  3 notification Notification oneof=event
  4 notification_cancelled NotificationCancelled oneof=event
  5 cell_closed CellClosed oneof=event
message SessionOpened
  1 session_id string
  2 output_truncation OutputTruncation
message CloseSessionRequest
  1 session_id string
message CloseSessionResponse
message SubscribeToToolCallsRequest
  1 session_id string
  2 tool_names ToolName repeated
message ToolCall
  1 session_id string
  2 execution_id string
  3 cell_id string
  4 invocation_id string
  5 runtime_tool_call_id string
  6 tool_name ToolName
  7 tool_kind ToolKind
  8 input_json bytes optional
  9 sequence uint64
  10 traceparent string optional
message CompleteToolCallRequest
  1 session_id string
  2 invocation_id string
  3 succeeded ToolCallSucceeded oneof=outcome
  4 failed ToolCallFailed oneof=outcome
message ToolCallSucceeded
  1 output_json bytes
message ToolCallFailed
  1 message string
message CompleteToolCallResponse
message ToolCallCancelled
  1 invocation_id string
message Notification
  1 notification_id string
  2 execution_id string
  3 cell_id string
  4 call_id string
  5 text string
message NotificationCancelled
  1 notification_id string
message AcknowledgeNotificationRequest
  1 session_id string
  2 notification_id string
message AcknowledgeNotificationResponse
message CellClosed
  1 execution_id string
  2 cell_id string
  3 final_tool_call_sequence uint64
message ExecuteRequest
  1 session_id string
  2 execution_id string
  3 tool_call_id string
  4 source string
  5 enabled_tools ToolDefinition repeated
  6 yield_time_ms uint64 optional
  7 max_output_tokens uint64 optional
message ExecuteEvent
  1 started ExecutionStarted oneof=event
  2 outcome ExecutionOutcome oneof=event
message ExecutionStarted
  1 execution_id string
  2 cell_id string
message WaitRequest
  1 session_id string
  2 cell_id string
  3 wait_id string
  4 yield_time_ms uint64
  5 max_output_tokens uint64 optional
message WaitResponse
  1 live_cell ExecutionOutcome oneof=state
  2 missing_cell ExecutionOutcome oneof=state
message CancelWaitRequest
  1 session_id string
  2 wait_id string
message CancelWaitResponse
message TerminateRequest
  1 session_id string
  2 cell_id string
  3 max_output_tokens uint64 optional
message YieldObservationRequest
  1 session_id string
  2 execution_id string oneof=observation
  3 wait_id string oneof=observation
message YieldObservationResponse
message GetProcessMetricsRequest
message GetProcessMetricsResponse
message ExecutionOutcome
  1 cell_id string
  2 content_items ContentItem repeated
  3 yielded ExecutionYielded oneof=outcome
  4 terminated ExecutionTerminated oneof=outcome
  5 completed ExecutionCompleted oneof=outcome
  6 code_mode_host_duration_ns uint64
message ExecutionYielded
message ExecutionTerminated
message ExecutionCompleted
  1 error_text string optional
message ToolDefinition
  1 name string
  2 tool_name ToolName
  3 description string
  4 kind ToolKind
  5 input_schema_json bytes optional
  6 output_schema_json bytes optional
message ToolName
  1 name string
  2 namespace string optional
message ContentItem
  1 text TextContent oneof=item
  2 image ImageContent oneof=item
  3 audio AudioContent oneof=item
message TextContent
  1 text string
message ImageContent
  1 image_url string
  2 detail ImageDetail optional
message AudioContent
  1 audio_url string
enum OutputTruncation
  0 OUTPUT_TRUNCATION_UNSPECIFIED
  1 OUTPUT_TRUNCATION_CLIENT
  2 OUTPUT_TRUNCATION_SERVER
enum ToolKind
  0 TOOL_KIND_UNSPECIFIED
  1 TOOL_KIND_FUNCTION
  2 TOOL_KIND_FREEFORM
enum ImageDetail
  0 IMAGE_DETAIL_UNSPECIFIED
  1 IMAGE_DETAIL_AUTO
  2 IMAGE_DETAIL_LOW
  3 IMAGE_DETAIL_HIGH
  4 IMAGE_DETAIL_ORIGINAL
`

// renderSurface writes the file's services, messages and enums in the notation of codexSurface.
func renderSurface(file protoreflect.FileDescriptor) string {
	var b strings.Builder
	b.WriteString("\n")
	services := file.Services()
	for i := range services.Len() {
		sd := services.Get(i)
		fmt.Fprintf(&b, "service %s\n", sd.Name())
		methods := sd.Methods()
		for j := range methods.Len() {
			md := methods.Get(j)
			fmt.Fprintf(&b, "  rpc %s(%s%s) returns (%s%s)\n", md.Name(),
				streamPrefix(md.IsStreamingClient()), md.Input().Name(),
				streamPrefix(md.IsStreamingServer()), md.Output().Name())
		}
	}
	messages := file.Messages()
	for i := range messages.Len() {
		renderMessage(&b, messages.Get(i))
	}
	enums := file.Enums()
	for i := range enums.Len() {
		ed := enums.Get(i)
		fmt.Fprintf(&b, "enum %s\n", ed.Name())
		values := ed.Values()
		for j := range values.Len() {
			fmt.Fprintf(&b, "  %d %s\n", values.Get(j).Number(), values.Get(j).Name())
		}
	}
	return b.String()
}

func renderMessage(b *strings.Builder, md protoreflect.MessageDescriptor) {
	fmt.Fprintf(b, "message %s\n", md.Name())
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		fmt.Fprintf(b, "  %d %s %s", fd.Number(), fd.Name(), fieldType(fd))
		if fd.IsList() {
			b.WriteString(" repeated")
		}
		if fd.HasOptionalKeyword() {
			b.WriteString(" optional")
		}
		if oneof := fd.ContainingOneof(); oneof != nil && !oneof.IsSynthetic() {
			fmt.Fprintf(b, " oneof=%s", oneof.Name())
		}
		b.WriteString("\n")
	}
	nested := md.Messages()
	for i := range nested.Len() {
		renderMessage(b, nested.Get(i))
	}
}

func fieldType(fd protoreflect.FieldDescriptor) string {
	switch {
	case fd.IsMap():
		return "map"
	case fd.Message() != nil:
		return string(fd.Message().Name())
	case fd.Enum() != nil:
		return string(fd.Enum().Name())
	}
	return fd.Kind().String()
}

func streamPrefix(streaming bool) string {
	if streaming {
		return "stream "
	}
	return ""
}

// TestSchemaMatchesCodex compares the generated descriptor of codex.code_mode.v1 with
// codexSurface line by line.
func TestSchemaMatchesCodex(t *testing.T) {
	file := code_modev1.File_codex_code_mode_v1_code_mode_proto
	if file.Package() != "codex.code_mode.v1" {
		t.Fatalf("package is %s, want codex.code_mode.v1", file.Package())
	}
	got := renderSurface(file)
	if got == codexSurface {
		return
	}
	gotLines, wantLines := strings.Split(got, "\n"), strings.Split(codexSurface, "\n")
	for i := range max(len(gotLines), len(wantLines)) {
		var g, w string
		if i < len(gotLines) {
			g = gotLines[i]
		}
		if i < len(wantLines) {
			w = wantLines[i]
		}
		if g != w {
			t.Errorf("line %d: schema has %q, Codex has %q", i, g, w)
			break
		}
	}
	t.Errorf("codex.code_mode.v1 differs from Codex's surface; full rendering of the schema:\n%s", got)
}
