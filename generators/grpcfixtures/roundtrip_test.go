package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	code_modev1 "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
)

// TestFixturesRoundTrip decodes every committed fixture into its generated message (unknown
// fields rejected), re-encodes it to the same JSON value, and checks that the binary encoding
// round-trips to an equal message. It requires as many fixtures as the descriptors yield, so an
// empty or misplaced tree fails.
func TestFixturesRoundTrip(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(committedTree, "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	fixtures, err := buildAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(fixtures) == 0 || len(paths) != len(fixtures) {
		t.Fatalf("%d fixtures under %s, the descriptors yield %d (run make generate)", len(paths), committedTree, len(fixtures))
	}
	for _, path := range paths {
		name := filepath.Base(filepath.Dir(path)) + "/" + strings.TrimSuffix(filepath.Base(path), ".json")
		t.Run(name, func(t *testing.T) {
			roundTrip(t, path)
		})
	}
}

func roundTrip(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mt := messageTypeOf(t, path)
	decoded := mt.New().Interface()
	if err := protojson.Unmarshal(data, decoded); err != nil {
		t.Fatalf("protojson decode: %v", err)
	}
	encoded, err := protojson.Marshal(decoded)
	if err != nil {
		t.Fatalf("protojson encode: %v", err)
	}
	if want, got := jsonValue(t, data), jsonValue(t, encoded); !reflect.DeepEqual(want, got) {
		t.Fatalf("re-encoded JSON differs\nfixture: %s\nencoded: %s", data, encoded)
	}

	wire, err := proto.Marshal(decoded)
	if err != nil {
		t.Fatalf("binary encode: %v", err)
	}
	fromWire := mt.New().Interface()
	if err := proto.Unmarshal(wire, fromWire); err != nil {
		t.Fatalf("binary decode: %v", err)
	}
	if !proto.Equal(decoded, fromWire) {
		t.Fatalf("binary round trip changed the message:\nbefore: %v\nafter:  %v", decoded, fromWire)
	}
}

// TestEveryMessageHasFixtures requires a minimal and a full fixture for every message of the
// package, so a generator regression cannot shrink the tree unnoticed.
func TestEveryMessageHasFixtures(t *testing.T) {
	messages := code_modev1.File_codex_code_mode_v1_code_mode_proto.Messages()
	// The baseline proto has 36; Codex 0.169 adds YieldObservation's and GetProcessMetrics' requests and
	// responses (docs/protocol/grpc.md#messages).
	if messages.Len() != 40 {
		t.Errorf("codex.code_mode.v1 declares %d messages, docs/protocol/grpc.md#messages has 40", messages.Len())
	}
	for i := range messages.Len() {
		name := string(messages.Get(i).Name())
		for _, c := range []string{"minimal", "full"} {
			if _, err := os.Stat(filepath.Join(committedTree, name, c+".json")); err != nil {
				t.Errorf("fixture %s/%s: %v", name, c, err)
			}
		}
	}
}

// messageTypeOf resolves the message a fixture belongs to from its directory name.
func messageTypeOf(t *testing.T, path string) protoreflect.MessageType {
	t.Helper()
	pkg := code_modev1.File_codex_code_mode_v1_code_mode_proto.Package()
	full := pkg.Append(protoreflect.Name(filepath.Base(filepath.Dir(path))))
	mt, err := protoregistry.GlobalTypes.FindMessageByName(full)
	if err != nil {
		t.Fatalf("fixture directory names no message of %s: %v", pkg, err)
	}
	return mt
}

// jsonValue parses data keeping numbers exact.
func jsonValue(t *testing.T, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, data)
	}
	return v
}
