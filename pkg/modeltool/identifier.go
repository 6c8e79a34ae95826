package modeltool

import "strings"

// NormalizeIdentifier turns a tool name into the JavaScript identifier under which the tool
// appears on the global `tools` object, by the rule of Codex's normalize_code_mode_identifier, so
// that a script written for Codex finds each tool under the same name
// (docs/protocol/javascript.md#tools): every character that is not an ASCII letter, `_` or `$`
// (or, after the first position, an ASCII digit) becomes `_`, one `_` per Unicode scalar value; an
// empty name becomes `_`.
func NormalizeIdentifier(name string) string {
	if name == "" {
		return "_"
	}
	var b strings.Builder
	b.Grow(len(name))
	index := 0
	for _, r := range name {
		if isIdentifierRune(r, index == 0) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
		index++
	}
	return b.String()
}

func isIdentifierRune(r rune, first bool) bool {
	switch {
	case r == '_' || r == '$':
		return true
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		return true
	case r >= '0' && r <= '9':
		return !first
	default:
		return false
	}
}
