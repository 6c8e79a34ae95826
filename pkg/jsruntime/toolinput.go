package jsruntime

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/codemodehq/codemode/pkg/jsruntime/internal/engine"
	"github.com/codemodehq/codemode/pkg/serdejson"
)

// Tool inputs cross once (ADR 62). The prelude serializes an input with its long strings taken
// out (a per-cell secret mark in their place) and, unless the JSON is short and has no backslash
// (which serde_json cannot refuse), sends it to Go in one bridge message, "id count skeleton";
// answering it, Go takes the count long strings through the prelude's part entry point, quoted
// from QuickJS's memory (engine.QuoteParts), splices them in, checks the whole input once as
// serde_json would parse it, and either answers the refusal the call throws or keeps the input
// for the call's record ("c id index @"), which the turn's take brings.

// inputScanDepth is the nesting up to which an input is accepted without asking serde_json:
// below its recursion limit (128), so that only deeper inputs pay for the exact verdict.
const inputScanDepth = 100

// inputScan is the scan of an input's skeleton (the module's one scanner, serdejson.Scan).
var inputScan = serdejson.ScanOptions{DepthLimit: inputScanDepth}

// newMark draws the cell's mark and returns its secret part for the prelude (beginSpec). Cell
// code never sees the mark (the prelude's replacer writes it into JSON.stringify's output only),
// so a string of the cell's own cannot pass for one.
func (t *toolCalls) newMark() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	secret := hex.EncodeToString(b[:])
	t.mark = []byte(`"codemode:` + secret + `"`)
	return secret
}

// hold answers a tool input sent as "id count skeleton", count the long strings to take: the
// refusal to throw, or nothing, the input then kept for the record of call id.
func (t *toolCalls) hold(payload string) engine.Reply {
	idText, rest, _ := strings.Cut(payload, " ")
	countText, skeleton, _ := strings.Cut(rest, " ")
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil || id <= t.lastID || strconv.FormatInt(id, 10) != idText {
		return t.forgedInput(forged("tool input for call %.20q", idText))
	}
	count, err := strconv.Atoi(countText)
	if err != nil || count < 0 || strconv.Itoa(count) != countText {
		return t.forgedInput(forged("tool input with %.20q strings", countText))
	}
	var parts [][]byte
	if count > 0 {
		if parts, err = t.r.e.QuoteParts(count); err != nil {
			return t.forgedInput(err)
		}
	}
	if _, replaced := t.held[id]; !replaced && len(t.held) > t.r.s.p.limits.maxPendingToolCalls {
		return t.forgedInput(forged("more than %d tool inputs held", t.r.s.p.limits.maxPendingToolCalls))
	}
	input, refusal, err := assembleInput([]byte(skeleton), t.mark, parts)
	switch {
	case err != nil:
		return t.forgedInput(err)
	case refusal != "":
		return engine.String(refusal)
	}
	if t.held == nil {
		t.held = make(map[int64]json.RawMessage)
	}
	t.held[id] = input
	return engine.Undefined()
}

// forgedInput fails the cell for a forged tool input.
func (t *toolCalls) forgedInput(err error) engine.Reply {
	t.r.Fault(err)
	return engine.TypeError(forgedMessageText)
}

// takeHeld removes and returns the input held for call id; inputs held for earlier ids (calls
// refused by the pending-call limit after their input crossed) are dropped.
func (t *toolCalls) takeHeld(id int64) (json.RawMessage, bool) {
	input, ok := t.held[id]
	for k := range t.held {
		if k <= id {
			delete(t.held, k)
		}
	}
	return input, ok
}

// assembleInput puts the quoted long strings parts back in place of the marks of skeleton, in
// order, and checks the input as serde_json would parse it: refusal is serde_json's text when it
// would refuse the input, err a forged message (marks and strings that do not pair up).
func assembleInput(skeleton, mark []byte, parts [][]byte) (input []byte, refusal string, err error) {
	input = skeleton
	if len(parts) > 0 {
		if input, err = splice(skeleton, mark, parts); err != nil {
			return nil, "", err
		}
	} else if bytes.Contains(skeleton, mark) {
		return nil, "", forged("tool input marks a string it did not send")
	}
	if s, _ := serdejson.Scan(skeleton, inputScan); !s.Valid || s.Surrogate || anySurrogateEscape(parts) {
		if _, err := serdejson.Parse(input); err != nil {
			return nil, err.Error(), nil
		}
	}
	return input, "", nil
}

// splice returns skeleton with its marks replaced by parts, in order, in one allocation.
func splice(skeleton, mark []byte, parts [][]byte) ([]byte, error) {
	size := len(skeleton) - len(parts)*len(mark)
	for _, p := range parts {
		size += len(p)
	}
	if size < 0 {
		return nil, forged("tool input has fewer marks than strings")
	}
	out := make([]byte, 0, size)
	rest := skeleton
	for _, p := range parts {
		i := bytes.Index(rest, mark)
		if i < 0 {
			return nil, forged("tool input has fewer marks than strings")
		}
		out = append(append(out, rest[:i]...), p...)
		rest = rest[i+len(mark):]
	}
	if bytes.Contains(rest, mark) {
		return nil, forged("tool input has more marks than strings")
	}
	return append(out, rest...), nil
}

// anySurrogateEscape reports whether a quoted string holds an escaped surrogate: the engine
// escapes lone ones only (\udxxx, lowercase), which serde_json refuses.
func anySurrogateEscape(parts [][]byte) bool {
	for _, p := range parts {
		if bytes.Contains(p, []byte(`\ud`)) {
			return true
		}
	}
	return false
}
