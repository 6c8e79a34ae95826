package grpcconv

import (
	"errors"
	"fmt"
	"time"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/codemode"
)

// RuntimeResponseToProto converts a response the host sends. took is the host's time from receipt of
// the request until the response was ready (code_mode_host_duration_ns, always set).
func RuntimeResponseToProto(r codemode.RuntimeResponse, took time.Duration) (*pb.ExecutionOutcome, error) {
	out := &pb.ExecutionOutcome{
		CellId:                 string(r.CellID),
		ContentItems:           make([]*pb.ContentItem, 0, len(r.ContentItems)),
		CodeModeHostDurationNs: durationNs(took),
	}
	for _, item := range r.ContentItems {
		converted, err := ContentItemToProto(item)
		if err != nil {
			return nil, err
		}
		out.ContentItems = append(out.ContentItems, converted)
	}
	switch r.Kind {
	case codemode.Yielded:
		out.Outcome = &pb.ExecutionOutcome_Yielded{Yielded: &pb.ExecutionYielded{}}
	case codemode.Terminated:
		out.Outcome = &pb.ExecutionOutcome_Terminated{Terminated: &pb.ExecutionTerminated{}}
	case codemode.Result:
		completed := &pb.ExecutionCompleted{}
		if r.ErrorText != nil {
			text := *r.ErrorText
			completed.ErrorText = &text
		}
		out.Outcome = &pb.ExecutionOutcome_Completed{Completed: completed}
	default:
		return nil, fmt.Errorf("code-mode response of cell %s has an invalid kind %d", r.CellID, int(r.Kind))
	}
	return out, nil
}

// durationNs is a host duration in nanoseconds; a negative one (a clock step) is 0.
func durationNs(d time.Duration) uint64 {
	if d < 0 {
		return 0
	}
	return uint64(d)
}

// RuntimeResponseFromProto converts an outcome the host returned, with the client's checks in
// Codex's order, so an outcome with several faults gets the same text from either client: the
// cell ID, every content item, then the outcome's presence. The host duration is not part of the
// domain response and is dropped.
func RuntimeResponseFromProto(o *pb.ExecutionOutcome) (codemode.RuntimeResponse, error) {
	if err := CheckHostIdentifier(o.GetCellId(), "cell ID"); err != nil {
		return codemode.RuntimeResponse{}, err
	}
	r := codemode.RuntimeResponse{CellID: codemode.CellID(o.GetCellId()), ContentItems: make([]codemode.ContentItem, 0, len(o.GetContentItems()))}
	for _, item := range o.GetContentItems() {
		converted, err := ContentItemFromProto(item)
		if err != nil {
			return codemode.RuntimeResponse{}, err
		}
		r.ContentItems = append(r.ContentItems, converted)
	}
	switch v := o.GetOutcome().(type) {
	case *pb.ExecutionOutcome_Yielded:
		r.Kind = codemode.Yielded
	case *pb.ExecutionOutcome_Terminated:
		r.Kind = codemode.Terminated
	case *pb.ExecutionOutcome_Completed:
		r.Kind = codemode.Result
		if v.Completed.ErrorText != nil {
			text := *v.Completed.ErrorText
			r.ErrorText = &text
		}
	default:
		return codemode.RuntimeResponse{}, errors.New("code-mode execution omitted its outcome")
	}
	return r, nil
}

// WaitOutcomeToProto converts the outcome of a Wait or Terminate the host sends.
func WaitOutcomeToProto(o codemode.WaitOutcome, took time.Duration) (*pb.WaitResponse, error) {
	outcome, err := RuntimeResponseToProto(o.Response, took)
	if err != nil {
		return nil, err
	}
	if o.Missing {
		return &pb.WaitResponse{State: &pb.WaitResponse_MissingCell{MissingCell: outcome}}, nil
	}
	return &pb.WaitResponse{State: &pb.WaitResponse_LiveCell{LiveCell: outcome}}, nil
}

// WaitOutcomeFromProto converts a WaitResponse the host returned; a response without a state is refused.
func WaitOutcomeFromProto(w *pb.WaitResponse) (codemode.WaitOutcome, error) {
	switch v := w.GetState().(type) {
	case *pb.WaitResponse_LiveCell:
		r, err := RuntimeResponseFromProto(v.LiveCell)
		return codemode.WaitOutcome{Response: r}, err
	case *pb.WaitResponse_MissingCell:
		r, err := RuntimeResponseFromProto(v.MissingCell)
		return codemode.WaitOutcome{Missing: true, Response: r}, err
	default:
		return codemode.WaitOutcome{}, errors.New("code-mode wait omitted its outcome")
	}
}
