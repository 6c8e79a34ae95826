package tsgen

import (
	"fmt"
	"strings"

	"github.com/codemodehq/codemode/generators/wiregen"
)

// laneUnions returns the unions whose variants carry x-lane: the transport messages.
func (m *model) laneUnions() []*wiregen.Schema {
	var out []*wiregen.Schema
	for _, s := range m.schemas {
		for _, v := range s.Variants {
			if v.Lane != "" {
				out = append(out, s)
				break
			}
		}
	}
	return out
}

// lanesFile renders lanes.ts: laneOf over every transport message union, from x-lane and
// x-lane-rules. ok is false when no variant has a lane.
func (m *model) lanesFile() (src []byte, ok bool, err error) {
	unions := m.laneUnions()
	if len(unions) == 0 {
		return nil, false, nil
	}
	tag := unions[0].Tag
	seen := map[string]string{}
	var names []string
	for _, s := range unions {
		if s.Kind != wiregen.KindInternalUnion || s.Tag != tag {
			return nil, false, fmt.Errorf("%s: lanes need internal unions sharing one tag (%q)", s.Name, tag)
		}
		names = append(names, s.Name)
		for _, v := range s.Variants {
			if v.Lane == "" {
				return nil, false, fmt.Errorf("%s: variant %s has no x-lane", s.Name, v.Name)
			}
			if prev, dup := seen[v.TagValue]; dup {
				return nil, false, fmt.Errorf("tag %q is both %s and %s", v.TagValue, prev, v.Name)
			}
			seen[v.TagValue] = v.Name
		}
	}
	m.p("/** Lane is the WebSocket a message travels on when a connection uses dual websockets. */")
	m.p("export type Lane = \"control\" | \"bulk\";")
	m.p("")
	m.p("/** LaneMessage is every transport message: what laneOf classifies. */")
	m.p("export type LaneMessage = %s;", strings.Join(names, " | "))
	m.p("")
	m.p("/** laneOf returns the lane of a message (the transport_lane table of docs/protocol/v1.md#websocket-and-lanes). */")
	m.p("export function laneOf(msg: LaneMessage): Lane {")
	m.p("  switch (%s) {", access("msg", tag))
	for _, s := range unions {
		for _, v := range s.Variants {
			m.p("    case %s:", jsString(v.TagValue))
			for _, r := range v.LaneRules {
				cond, err := m.ruleCondition(r)
				if err != nil {
					return nil, false, fmt.Errorf("%s.%s: %w", s.Name, v.Name, err)
				}
				m.p("      if (%s) {", cond)
				m.p("        return %s;", jsString(r.Lane))
				m.p("      }")
			}
			m.p("      return %s;", jsString(v.Lane))
		}
	}
	m.p("  }")
	m.p("  throw new TypeError(\"laneOf: not a transport message\");")
	m.p("}")
	body := m.take()
	var out strings.Builder
	out.WriteString(generatedHeader + "\n\n")
	out.WriteString("// The lane table, generated from the x-lane and x-lane-rules annotations of\n")
	out.WriteString("// schemas/jsonschema/v1.\n\n")
	out.WriteString("import type { " + strings.Join(names, ", ") + " } from \"./types.js\";\n\n")
	out.WriteString(body)
	return []byte(out.String()), true, nil
}

// ruleCondition renders the chain "field holds variant" of a lane rule as a condition on msg;
// TypeScript narrows each step's union for the next.
func (m *model) ruleCondition(r wiregen.LaneRule) (string, error) {
	expr := "msg"
	var conds []string
	for _, st := range r.Match {
		expr = access(expr, st.Field)
		owner := m.variants[st.Variant]
		if owner == nil {
			return "", fmt.Errorf("lane rule names unknown variant %s", st.Variant)
		}
		var v wiregen.Variant
		for _, cand := range owner.Variants {
			if cand.Name == st.Variant {
				v = cand
			}
		}
		if owner.Kind == wiregen.KindInternalUnion {
			conds = append(conds, fmt.Sprintf("%s === %s", access(expr, owner.Tag), jsString(v.TagValue)))
		} else {
			// The next step reads a field of the variant's body.
			conds = append(conds, fmt.Sprintf("%s in %s", jsString(v.TagValue), expr))
			expr = access(expr, v.TagValue)
		}
	}
	return strings.Join(conds, " && "), nil
}
