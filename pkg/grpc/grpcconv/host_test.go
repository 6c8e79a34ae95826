package grpcconv_test

import (
	"strings"
	"testing"
	"time"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
)

// The host's conversions (Codex's code-mode-host/src/grpc/conversions_tests.rs) and its
// validation of identifiers (validation.rs).

func TestRejectsMissingNamesUnknownToolKindsAndInvalidJsonSchemas(t *testing.T) {
	request := func(d *pb.ToolDefinition) *pb.ExecuteRequest {
		return &pb.ExecuteRequest{SessionId: "session", ExecutionId: "execution", ToolCallId: "call", EnabledTools: []*pb.ToolDefinition{d}}
	}
	valid := func() *pb.ToolDefinition {
		return &pb.ToolDefinition{Name: "echo", ToolName: &pb.ToolName{Name: "echo", Namespace: ptr("tools")}, Kind: pb.ToolKind_TOOL_KIND_FUNCTION}
	}
	cases := []struct {
		label string
		edit  func(*pb.ToolDefinition)
		text  string
	}{
		{"missing tool name", func(d *pb.ToolDefinition) { d.ToolName = nil }, "tool definition is missing its tool name"},
		{"unspecified kind", func(d *pb.ToolDefinition) { d.Kind = pb.ToolKind_TOOL_KIND_UNSPECIFIED }, "tool definition has an invalid kind"},
		{"unknown kind", func(d *pb.ToolDefinition) { d.Kind = pb.ToolKind(3) }, "tool definition has an invalid kind"},
		{"invalid input schema", func(d *pb.ToolDefinition) { d.InputSchemaJson = []byte("not-json") },
			"invalid tool input schema: expected ident at line 1 column 2"},
		{"invalid output schema", func(d *pb.ToolDefinition) { d.OutputSchemaJson = []byte("{} x") },
			"invalid tool output schema: trailing characters at line 1 column 4"},
		{"empty definition name", func(d *pb.ToolDefinition) { d.Name = "" }, "code-mode tool definition name must not be empty"},
		{"empty tool name", func(d *pb.ToolDefinition) { d.ToolName.Name = "" }, "code-mode tool name must not be empty"},
		{"oversized namespace", func(d *pb.ToolDefinition) { d.ToolName.Namespace = ptr(strings.Repeat("n", 257)) },
			"code-mode tool namespace exceeds 256 bytes"},
	}
	for _, c := range cases {
		d := valid()
		c.edit(d)
		_, err := grpcconv.ExecuteRequestFromProto(request(d))
		wantError(t, c.label, err, c.text)
	}
	if _, err := grpcconv.ExecuteRequestFromProto(request(valid())); err != nil {
		t.Fatalf("valid definition: %v", err)
	}
	empty := ""
	d := valid()
	d.ToolName.Namespace = &empty
	got, err := grpcconv.ExecuteRequestFromProto(request(d))
	if err != nil || got.EnabledTools[0].ToolName.Namespace == nil || *got.EnabledTools[0].ToolName.Namespace != "" {
		t.Fatalf("an empty namespace must stay distinct from an unset one: %+v, %v", got, err)
	}
	_, err = grpcconv.ExecuteRequestFromProto(&pb.ExecuteRequest{})
	wantError(t, "empty tool call ID", err, "code-mode tool call ID must not be empty")
}

func TestMapsTextImageAudioAndTerminalErrorWithoutLosingDetails(t *testing.T) {
	o, err := grpcconv.RuntimeResponseToProto(codemode.RuntimeResponse{
		Kind: codemode.Result, CellID: "cell", ErrorText: ptr("failed"),
		ContentItems: []codemode.ContentItem{
			codemode.InputText{Text: "hello"},
			codemode.InputImage{ImageURL: "data:image/png;base64,YQ==", Detail: codemode.ImageDetailOriginal},
			codemode.InputAudio{AudioURL: "data:audio/wav;base64,YQ=="},
		},
	}, 123_456_789*time.Nanosecond)
	if err != nil {
		t.Fatal(err)
	}
	wantProto(t, "outcome", o, &pb.ExecutionOutcome{
		CodeModeHostDurationNs: 123_456_789, CellId: "cell",
		ContentItems: []*pb.ContentItem{
			{Item: &pb.ContentItem_Text{Text: &pb.TextContent{Text: "hello"}}},
			{Item: &pb.ContentItem_Image{Image: &pb.ImageContent{ImageUrl: "data:image/png;base64,YQ==", Detail: ptr(pb.ImageDetail_IMAGE_DETAIL_ORIGINAL)}}},
			{Item: &pb.ContentItem_Audio{Audio: &pb.AudioContent{AudioUrl: "data:audio/wav;base64,YQ=="}}},
		},
		Outcome: &pb.ExecutionOutcome_Completed{Completed: &pb.ExecutionCompleted{ErrorText: ptr("failed")}},
	})
	missing, err := grpcconv.WaitOutcomeToProto(codemode.MissingCellOutcome("7"), 0)
	if err != nil {
		t.Fatal(err)
	}
	wantProto(t, "missing cell", missing, &pb.WaitResponse{State: &pb.WaitResponse_MissingCell{MissingCell: &pb.ExecutionOutcome{
		CellId: "7", ContentItems: []*pb.ContentItem{},
		Outcome: &pb.ExecutionOutcome_Completed{Completed: &pb.ExecutionCompleted{ErrorText: ptr("exec cell 7 not found")}},
	}}})
	_, err = grpcconv.RuntimeResponseToProto(codemode.RuntimeResponse{Kind: codemode.Yielded, CellID: "1",
		ContentItems: []codemode.ContentItem{codemode.InputImage{ImageURL: "x", Detail: "ultra"}}}, 0)
	wantError(t, "unknown domain detail", err, `code-mode image has invalid detail "ultra"`)
}

func TestIdentifiersAreValidatedWithCodexTexts(t *testing.T) {
	wantError(t, "empty", grpcconv.CheckIdentifier("", "wait ID"), "code-mode wait ID must not be empty")
	wantError(t, "oversized", grpcconv.CheckIdentifier(strings.Repeat("é", 129), "cell ID"), "code-mode cell ID exceeds 256 bytes")
	if err := grpcconv.CheckIdentifier(strings.Repeat("x", 256), "cell ID"); err != nil {
		t.Fatalf("256 bytes: %v", err)
	}
	_, err := grpcconv.CheckUUID("not-a-uuid", "session ID")
	wantError(t, "not a UUID", err, "code-mode session ID must be a UUID")
	_, err = grpcconv.CheckUUID("", "session ID")
	wantError(t, "empty UUID", err, "code-mode session ID must not be empty")
	id, err := grpcconv.CheckUUID("{6BA7B810-9DAD-11D1-80B4-00C04FD430C8}", "session ID")
	if err != nil || id.String() != "6ba7b810-9dad-11d1-80b4-00c04fd430c8" {
		t.Fatalf("braced upper-case UUID: %v %v", id, err)
	}
	wantError(t, "too many filters", grpcconv.CheckToolFilters(make([]*pb.ToolName, 65)), "code-mode tool subscription exceeds 64 filters")
	wantError(t, "host returned empty", grpcconv.CheckHostIdentifier("", "session ID"), "gRPC code-mode host returned an empty session ID")
}

func TestSessionLimitsAreSetOnlyWhenAnyIs(t *testing.T) {
	if grpcconv.SessionLimitsToProto(codemode.SessionCellExecutionLimits{}) != nil {
		t.Fatal("default limits must leave cell_execution_limits unset")
	}
	heap := uint64(1<<53 + 1)
	l := grpcconv.SessionLimitsToProto(codemode.SessionCellExecutionLimits{MaxHeapSizeBytes: &heap})
	wantProto(t, "heap only", l, &pb.SessionCellExecutionLimits{MaxHeapSizeBytes: &heap})
	wantEqual(t, "round trip", grpcconv.SessionLimitsFromProto(l), codemode.SessionCellExecutionLimits{MaxHeapSizeBytes: &heap})
	wantEqual(t, "unset", grpcconv.SessionLimitsFromProto(nil), codemode.SessionCellExecutionLimits{})
}
