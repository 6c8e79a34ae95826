package execrpc

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/codemodehq/codemode/pkg/serdejson"
)

// MaxValueNodes is Codex's MAX_JSONRPC_VALUE_NODES: the most JSON values one message may hold,
// counting the root, every array element and every object member's value (keys and string
// lengths do not count). A maximal fs/walk response is about 150,000 values.
const MaxValueNodes = 256 * 1024

// TooManyValuesText is the error text of a message over the budget.
var TooManyValuesText = "JSON-RPC message exceeds the limit of " + strconv.Itoa(MaxValueNodes) + " JSON values"

// maxScanDepth stops the pre-scan where serde_json's recursion limit stops the parser; the
// parser then reports the error in serde_json's words.
const maxScanDepth = 128

// scanResult is what the pre-scan learned about the top level of a message.
type scanResult struct {
	complete                    bool // the whole document was scanned without a syntax error
	object                      bool // the root is an object
	hasID, hasMethod, hasResult bool
}

// keyCheck is the pre-scan's Key hook: it refuses duplicate keys, in document order, and notes
// the root object's members that decide the message's kind.
type keyCheck struct {
	res *scanResult
	// objects are the objects on the current path, innermost last; keys holds their keys, each
	// object's from its mark.
	objects []openObject
	keys    [][]byte
	// The first objects and keys of a message fit here, in the allocation of the check itself.
	objectsBuf [8]openObject
	keysBuf    [32][]byte
}

// openObject is one object of the current path: its nesting, where its keys start in keys and,
// past a few keys, a set that keeps the check linear.
type openObject struct {
	depth, mark int
	seen        map[string]struct{}
}

// scan walks a document once without building anything (serdejson.Scan): it counts values
// against the budget and refuses duplicate keys, in document order, so an over-budget message is
// refused before a byte is allocated for its values. At the first syntax error it stops and
// leaves the verdict to the parser (serdeimpl.ParseDocument, serde_json's texts).
func scan(data []byte) (scanResult, error) {
	var res scanResult
	k := &keyCheck{res: &res}
	k.objects, k.keys = k.objectsBuf[:0], k.keysBuf[:0]
	r, err := serdejson.Scan(data, serdejson.ScanOptions{
		DepthLimit: maxScanDepth,
		MaxValues:  MaxValueNodes,
		ValuesText: TooManyValuesText,
		Key:        k.key,
	})
	res.complete = err == nil && r.Valid
	trimmed := bytes.TrimLeft(data, " \t\n\r")
	res.object = len(trimmed) > 0 && trimmed[0] == '{'
	return res, err
}

// key checks one key of an object at depth: member 0 opens the object, and every object deeper
// or as deep on the path has ended. The keys kept are raw: the scan's key text lives as long as
// the message.
func (k *keyCheck) key(depth, member int, raw []byte) string {
	for n := len(k.objects); n > 0 && (k.objects[n-1].depth > depth || member == 0 && k.objects[n-1].depth == depth); n-- {
		k.keys = k.keys[:k.objects[n-1].mark]
		k.objects = k.objects[:n-1]
	}
	if member == 0 {
		k.objects = append(k.objects, openObject{depth: depth, mark: len(k.keys)})
	}
	o := &k.objects[len(k.objects)-1]
	if o.seen != nil {
		if _, dup := o.seen[string(raw)]; dup {
			return duplicateKey(raw)
		}
		o.seen[string(raw)] = struct{}{}
	} else {
		for _, seen := range k.keys[o.mark:] {
			if bytes.Equal(seen, raw) {
				return duplicateKey(raw)
			}
		}
		k.keys = append(k.keys, raw)
		if len(k.keys)-o.mark > 16 {
			o.seen = make(map[string]struct{}, 64)
			for _, seen := range k.keys[o.mark:] {
				o.seen[string(seen)] = struct{}{}
			}
		}
	}
	if depth == 1 {
		switch string(raw) {
		case "id":
			k.res.hasID = true
		case "method":
			k.res.hasMethod = true
		case "result":
			k.res.hasResult = true
		}
	}
	return ""
}

func duplicateKey(key []byte) string { return fmt.Sprintf("duplicate JSON object key `%s`", key) }
