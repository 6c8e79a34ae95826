package jsruntime

import (
	"encoding/json"
	"strings"
	"testing"
)

// BenchmarkScanToolResult measures the one-pass check of a tool result: a 1 MiB string, and 20,000
// small objects (numbers, keys, short strings).
func BenchmarkScanToolResult(b *testing.B) {
	str, _ := json.Marshal(map[string]string{"data": strings.Repeat("x", 1<<20)})
	objects := make([]map[string]any, 20_000)
	for i := range objects {
		objects[i] = map[string]any{"id": i, "name": "item", "score": 1.5 * float64(i), "tags": []string{"a", "b"}, "ok": true}
	}
	many, _ := json.Marshal(objects)
	for _, c := range []struct {
		name string
		doc  []byte
	}{{"1MiBString", str}, {"20kObjects", many}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.doc)))
			for b.Loop() {
				if _, ok := scanToolResult(c.doc); !ok {
					b.Fatal("invalid")
				}
			}
		})
	}
}
