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

// operation is a request variant with the response variant a success carries.
type operation struct {
	req, resp *Variant
}

// serviceFile writes the host handler interface, its dispatcher and the client request builder
// from the x-response annotations. It returns ok=false when no union carries x-response.
func (g *generator) serviceFile() (name string, src []byte, ok bool, err error) {
	var reqUnion, respUnion, resultUnion *Schema
	var ops []operation
	for _, s := range g.schemas {
		for i := range s.Variants {
			if s.Variants[i].Response != "" {
				reqUnion = s
				resp, owner := g.findVariant(s.Variants[i].Response)
				if resp == nil {
					return "", nil, false, fmt.Errorf("%s: x-response names unknown variant %s", s.Variants[i].Name, s.Variants[i].Response)
				}
				respUnion = owner
				ops = append(ops, operation{req: &s.Variants[i], resp: resp})
			}
		}
	}
	if reqUnion == nil {
		return "", nil, false, nil
	}
	for _, s := range g.schemas {
		if s.Generic == "WireResult<"+respUnion.Name+">" {
			resultUnion = s
		}
	}
	if resultUnion == nil || len(resultUnion.Variants) != 2 {
		return "", nil, false, fmt.Errorf("no WireResult<%s> union with ok/error variants", respUnion.Name)
	}
	okV, errV := resultUnion.Variants[0], resultUnion.Variants[1]
	h := reqUnion.Name + "Handler"
	g.p("// %s is implemented by a host: one method per %s variant. A returned error becomes", h, reqUnion.Name)
	g.p("// {\"status\":\"error\",\"message\":err.Error()} on the wire.")
	g.p("type %s interface {", h)
	for _, op := range ops {
		g.p("// %s handles %q.", op.req.Name, op.req.TagValue)
		g.p("%s(ctx context.Context, req %s) (%s, error)", op.req.Name, op.req.Name, op.resp.Name)
	}
	g.p("}")
	g.p("")
	g.p("// Dispatch%s calls the handler method for req and wraps the outcome in a %s.", reqUnion.Name, resultUnion.Name)
	g.p("func Dispatch%s(ctx context.Context, h %s, req %s) %s {", reqUnion.Name, h, reqUnion.Name, resultUnion.Name)
	g.p("var resp %s", respUnion.Name)
	g.p("var err error")
	g.p("switch r := req.(type) {")
	for _, op := range ops {
		g.p("case %s:", op.req.Name)
		g.p("resp, err = h.%s(ctx, r)", op.req.Name)
	}
	g.p("default:")
	g.p("err = fmt.Errorf(\"unsupported %s %%T\", req)", reqUnion.Name)
	g.p("}")
	g.p("if err != nil { return %s{%s: err.Error()} }", errV.Name, errV.Fields[0].Go)
	g.p("return %s{%s: resp}", okV.Name, okV.Fields[0].Go)
	g.p("}")
	g.p("")
	env, idField, reqField, idType := g.findEnvelope(reqUnion.Name)
	if env != nil {
		g.p("// RequestBuilder wraps %s values in %s envelopes with fresh ids, starting at 1 like", reqUnion.Name, env.Name)
		g.p("// Codex's client. It is safe for concurrent use.")
		g.p("type RequestBuilder struct {")
		g.p("last atomic.Int64")
		g.p("}")
		g.p("")
		for _, op := range ops {
			g.p("// %s builds the %q envelope.", op.req.Name, op.req.TagValue)
			g.p("func (rb *RequestBuilder) %s(req %s) %s {", op.req.Name, op.req.Name, env.Name)
			g.p("return %s{%s: %s(rb.last.Add(1)), %s: req}", env.Name, idField, idType, reqField)
			g.p("}")
			g.p("")
		}
	}
	name, src, err = g.file("service.go", "context", "fmt", "sync/atomic")
	return name, src, true, err
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

// findEnvelope finds the variant that carries a request union next to an integer id.
func (g *generator) findEnvelope(reqUnion string) (v *Variant, idField, reqField, idType string) {
	for _, s := range g.schemas {
		for i := range s.Variants {
			var id, req string
			for _, f := range s.Variants[i].Fields {
				if f.Type.Kind == "ref" && f.Type.Ref == reqUnion {
					req = f.Go
				}
				if f.Type.Kind == "ref" && g.byName[f.Type.Ref].Kind == KindScalar && g.byName[f.Type.Ref].Base == "i64" {
					id, idType = f.Go, f.Type.Ref
				}
			}
			if id != "" && req != "" {
				return &s.Variants[i], id, req, idType
			}
		}
	}
	return nil, "", "", ""
}
