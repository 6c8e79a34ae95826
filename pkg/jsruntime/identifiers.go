package jsruntime

import "strings"

// normalizeIdentifier turns a tool name into the key it has on the global `tools` object, as
// Codex's normalize_code_mode_identifier does: every character that cannot start (first) or
// continue (rest) an ASCII JavaScript identifier becomes "_", and an empty name becomes "_".
func normalizeIdentifier(name string) string {
	if name == "" {
		return "_"
	}
	var b strings.Builder
	b.Grow(len(name))
	first := true
	for _, r := range name {
		ok := r == '_' || r == '$' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (!first && r >= '0' && r <= '9')
		if ok {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
		first = false
	}
	return b.String()
}
