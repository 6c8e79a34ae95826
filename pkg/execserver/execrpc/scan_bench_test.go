package execrpc

import (
	"encoding/json"
	"fmt"
	"testing"
)

// BenchmarkScan measures the bounded pre-scan of a message: a small request, and a response of
// 20,000 entries like fs/walk's.
func BenchmarkScan(b *testing.B) {
	small := []byte(`{"id":7,"method":"process/read","params":{"processId":"p1","afterSeq":3,"maxBytes":65536,"waitMs":1000}}`)
	entries := make([]map[string]any, 20_000)
	for i := range entries {
		entries[i] = map[string]any{"path": fmt.Sprintf("/src/dir%d/file%d.go", i%50, i), "isDirectory": false, "size": i * 17, "modifiedAtMs": 1700000000000 + i}
	}
	big, _ := json.Marshal(map[string]any{"id": 1, "result": map[string]any{"entries": entries}})
	for _, c := range []struct {
		name string
		doc  []byte
	}{{"Small", small}, {"Walk20k", big}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.doc)))
			for b.Loop() {
				if r, err := scan(c.doc); err != nil || !r.complete {
					b.Fatal(r, err)
				}
			}
		})
	}
}
