package wiregen

import (
	"fmt"
)

// hasLanes tells whether any variant carries an x-lane annotation (the V1 wire's dual
// WebSockets); without one there is no lane table to write.
func (g *generator) hasLanes() bool {
	for _, s := range g.schemas {
		for _, v := range s.Variants {
			if v.Lane != "" {
				return true
			}
		}
	}
	return false
}

// lanesFile writes the Lane type and LaneOf from the x-lane / x-lane-rules annotations.
func (g *generator) lanesFile() (string, []byte, error) {
	g.p("// Lane is the WebSocket a message travels on when a connection uses dual websockets.")
	g.p("type Lane uint8")
	g.p("")
	g.p("const (")
	g.p("// LaneNone is returned for values that are not transport messages.")
	g.p("LaneNone Lane = iota")
	g.p("// LaneControl carries handshakes, operations, responses and notifications.")
	g.p("LaneControl")
	g.p("// LaneBulk carries tool invocations, tool results, delegate errors and delegate cancels.")
	g.p("LaneBulk")
	g.p(")")
	g.p("")
	g.p("// String returns \"control\", \"bulk\" or \"none\".")
	g.p("func (l Lane) String() string {")
	g.p("switch l { case LaneControl: return \"control\"; case LaneBulk: return \"bulk\" }")
	g.p("return \"none\"")
	g.p("}")
	g.p("")
	hasRules := false
	for _, s := range g.schemas {
		for _, v := range s.Variants {
			hasRules = hasRules || len(v.LaneRules) > 0
		}
	}
	g.p("// LaneOf returns the lane of a message variant (the transport_lane table).")
	g.p("func LaneOf(m Message) Lane {")
	if hasRules {
		g.p("switch v := m.(type) {")
	} else {
		g.p("switch m.(type) {")
	}
	for _, s := range g.schemas {
		for _, v := range s.Variants {
			if v.Lane == "" {
				continue
			}
			g.p("case %s:", v.Name)
			for _, r := range v.LaneRules {
				prev := "v"
				for i, st := range r.Match {
					name := fmt.Sprintf("x%d", i)
					if i == len(r.Match)-1 {
						name = "_"
					}
					g.p("if %s, ok := %s.%s.(%s); ok {", name, prev, goFieldName(st.Field), st.Variant)
					prev = name
				}
				g.p("return %s", laneConst(r.Lane))
				for range r.Match {
					g.p("}")
				}
			}
			g.p("return %s", laneConst(v.Lane))
		}
	}
	g.p("}")
	g.p("return LaneNone")
	g.p("}")
	return g.file("lanes.go")
}

func laneConst(l string) string {
	if l == "bulk" {
		return "LaneBulk"
	}
	return "LaneControl"
}

// checkResponses checks the x-response annotations: each names the HostResponse variant a
// success of its request carries. They document the protocol and generate no code: a host
// answers a request asynchronously, on the cell's route (pkg/v1/v1host), and a client correlates
// answers with its own pending set (pkg/v1/v1client), so a synchronous handler interface and a
// request builder fitted neither and were dropped (issue 25).
func (g *generator) checkResponses() error {
	for _, s := range g.schemas {
		for _, v := range s.Variants {
			if v.Response == "" {
				continue
			}
			if resp, _ := g.findVariant(v.Response); resp == nil {
				return fmt.Errorf("%s: x-response names unknown variant %s", v.Name, v.Response)
			}
		}
	}
	return nil
}

func (g *generator) findVariant(name string) (*Variant, *Schema) {
	for _, s := range g.schemas {
		for i := range s.Variants {
			if s.Variants[i].Name == name {
				return &s.Variants[i], s
			}
		}
	}
	return nil, nil
}
