package grpcconv_test

import (
	"reflect"
	"testing"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
)

// wantProto fails the test unless got equals want as protobuf messages.
func wantProto(t *testing.T, label string, got, want proto.Message) {
	t.Helper()
	if !proto.Equal(got, want) {
		t.Fatalf("%s:\n got %s\nwant %s", label, prototext.Format(got), prototext.Format(want))
	}
}

// wantError fails the test unless err's text is exactly text.
func wantError(t *testing.T, label string, err error, text string) {
	t.Helper()
	if err == nil || err.Error() != text {
		t.Fatalf("%s: error %v, want exactly %q", label, err, text)
	}
}

// wantEqual fails the test unless got and want are deeply equal.
func wantEqual(t *testing.T, label string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got %#v\nwant %#v", label, got, want)
	}
}

func ptr[T any](v T) *T { return &v }
