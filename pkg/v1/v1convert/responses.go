package v1convert

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
)

// ContentItemsToWire converts a cell's output for the wire. It never returns nil: an empty
// list is encoded as [].
func ContentItemsToWire(items []codemode.ContentItem) []wirev1.WireContentItem {
	out := make([]wirev1.WireContentItem, 0, len(items))
	for _, it := range items {
		switch v := it.(type) {
		case codemode.InputText:
			out = append(out, wirev1.InputText{Text: v.Text})
		case codemode.InputImage:
			img := wirev1.InputImage{ImageUrl: v.ImageURL}
			if v.Detail != "" {
				d := string(v.Detail)
				img.Detail = &d
			}
			out = append(out, img)
		case codemode.InputAudio:
			out = append(out, wirev1.InputAudio{AudioUrl: v.AudioURL})
		}
	}
	return out
}

// ContentItemsFromWire converts received output. It never returns nil.
func ContentItemsFromWire(items []wirev1.WireContentItem) []codemode.ContentItem {
	out := make([]codemode.ContentItem, 0, len(items))
	for _, it := range items {
		switch v := it.(type) {
		case wirev1.InputText:
			out = append(out, codemode.InputText{Text: v.Text})
		case wirev1.InputImage:
			img := codemode.InputImage{ImageURL: v.ImageUrl}
			if v.Detail != nil {
				img.Detail = codemode.ImageDetail(*v.Detail)
			}
			out = append(out, img)
		case wirev1.InputAudio:
			out = append(out, codemode.InputAudio{AudioURL: v.AudioUrl})
		}
	}
	return out
}

// ErrMissingHostDuration is Codex's refusal to encode a runtime response without its host
// duration for a generation that requires one.
var ErrMissingHostDuration = errors.New("code-mode response is missing host duration")

// RuntimeResponseToWire converts a response for the wire generation g under cell, the wire ID
// of its cell. From GenerationHostDuration on the response must carry HostDuration.
func RuntimeResponseToWire(r codemode.RuntimeResponse, cell wirev1.WireCellId, g wirev1.Generation) (wirev1.WireRuntimeResponse, error) {
	items := ContentItemsToWire(r.ContentItems)
	var ns *uint64
	if g >= wirev1.GenerationHostDuration {
		if r.HostDuration == nil {
			return nil, ErrMissingHostDuration
		}
		d := durationNanos(*r.HostDuration)
		ns = &d
	}
	switch r.Kind {
	case codemode.Yielded:
		return wirev1.Yielded{CellId: cell, ContentItems: items, CodeModeHostDurationNs: ns}, nil
	case codemode.Terminated:
		return wirev1.Terminated{CellId: cell, ContentItems: items, CodeModeHostDurationNs: ns}, nil
	case codemode.Result:
		return wirev1.Result{CellId: cell, ContentItems: items, ErrorText: r.ErrorText, ResultBufferedForNs: bufferedNanos(r, g), CodeModeHostDurationNs: ns}, nil
	}
	return nil, fmt.Errorf("runtime response of cell %s has no kind", r.CellID)
}

// bufferedNanos is a Result's result_buffered_for_ns from generation bounded-output on (0 when
// the runtime did not say: the result was not known to have waited), nil before.
func bufferedNanos(r codemode.RuntimeResponse, g wirev1.Generation) *uint64 {
	if g < wirev1.GenerationBoundedOutput {
		return nil
	}
	var ns uint64
	if r.BufferedFor != nil {
		ns = durationNanos(*r.BufferedFor)
	}
	return &ns
}

// durationNanos is d in nanoseconds; a negative duration (which a monotonic clock never gives)
// counts as 0.
func durationNanos(d time.Duration) uint64 {
	if d < 0 {
		return 0
	}
	return uint64(d)
}

// hostDuration converts a received duration; values beyond time.Duration's range saturate.
func hostDuration(ns *uint64) *time.Duration {
	if ns == nil {
		return nil
	}
	d := time.Duration(math.MaxInt64)
	if *ns <= math.MaxInt64 {
		d = time.Duration(*ns)
	}
	return &d
}

// RuntimeResponseFromWire converts a received response of any generation; its CellID is the wire
// ID, which the client maps to the public ID, and HostDuration and BufferedFor are set when the
// host sent them.
func RuntimeResponseFromWire(w wirev1.WireRuntimeResponse) codemode.RuntimeResponse {
	switch v := w.(type) {
	case wirev1.Yielded:
		return codemode.RuntimeResponse{Kind: codemode.Yielded, CellID: codemode.CellID(v.CellId), ContentItems: ContentItemsFromWire(v.ContentItems), HostDuration: hostDuration(v.CodeModeHostDurationNs)}
	case wirev1.Terminated:
		return codemode.RuntimeResponse{Kind: codemode.Terminated, CellID: codemode.CellID(v.CellId), ContentItems: ContentItemsFromWire(v.ContentItems), HostDuration: hostDuration(v.CodeModeHostDurationNs)}
	case wirev1.Result:
		return codemode.RuntimeResponse{Kind: codemode.Result, CellID: codemode.CellID(v.CellId), ContentItems: ContentItemsFromWire(v.ContentItems), ErrorText: v.ErrorText, HostDuration: hostDuration(v.CodeModeHostDurationNs), BufferedFor: hostDuration(v.ResultBufferedForNs)}
	}
	return codemode.RuntimeResponse{}
}

// RuntimeResponseCellID is the cell a wire response names.
func RuntimeResponseCellID(w wirev1.WireRuntimeResponse) wirev1.WireCellId {
	switch v := w.(type) {
	case wirev1.Yielded:
		return v.CellId
	case wirev1.Terminated:
		return v.CellId
	case wirev1.Result:
		return v.CellId
	}
	return ""
}

// WaitOutcomeToWire converts the outcome of a wait or terminate for generation g.
func WaitOutcomeToWire(o codemode.WaitOutcome, cell wirev1.WireCellId, g wirev1.Generation) (wirev1.WireWaitOutcome, error) {
	r, err := RuntimeResponseToWire(o.Response, cell, g)
	if err != nil {
		return nil, err
	}
	if o.Missing {
		return wirev1.MissingCell{Value: r}, nil
	}
	return wirev1.LiveCell{Value: r}, nil
}

// WaitOutcomeFromWire converts a received outcome (wire cell IDs, as RuntimeResponseFromWire).
func WaitOutcomeFromWire(w wirev1.WireWaitOutcome) codemode.WaitOutcome {
	switch v := w.(type) {
	case wirev1.LiveCell:
		return codemode.WaitOutcome{Response: RuntimeResponseFromWire(v.Value)}
	case wirev1.MissingCell:
		return codemode.WaitOutcome{Missing: true, Response: RuntimeResponseFromWire(v.Value)}
	}
	return codemode.WaitOutcome{}
}

// WaitOutcomeCellID is the cell a wire outcome names.
func WaitOutcomeCellID(w wirev1.WireWaitOutcome) wirev1.WireCellId {
	switch v := w.(type) {
	case wirev1.LiveCell:
		return RuntimeResponseCellID(v.Value)
	case wirev1.MissingCell:
		return RuntimeResponseCellID(v.Value)
	}
	return ""
}
