package tsgen

import (
	"fmt"
	"strings"

	"github.com/codemodehq/codemode/generators/wiregen"
)

// genericInstance is a union that instantiates a generic ("x-generic": WireResult<HostResponse>).
type genericInstance struct {
	schema *wiregen.Schema
	args   []string
}

// parseGeneric splits "WireResult<HostResponse>" into its name and arguments.
func parseGeneric(g string) (name string, args []string, ok bool) {
	open := strings.IndexByte(g, '<')
	if open <= 0 || !strings.HasSuffix(g, ">") {
		return "", nil, false
	}
	for _, a := range strings.Split(g[open+1:len(g)-1], ",") {
		args = append(args, strings.TrimSpace(a))
	}
	return g[:open], args, true
}

// generics writes one generic type alias per x-generic name, e.g.
// WireResult<T> = {status: "ok"; value: T} | {status: "error"; message: string}, so code can be
// written once for HostResponseResult, RuntimeResponseResult and DelegateResponseResult. Every
// instantiation must have the same shape once its arguments are replaced by the parameters.
func (m *model) generics() error {
	var order []string
	groups := map[string][]genericInstance{}
	for _, s := range m.schemas {
		if s.Generic == "" {
			continue
		}
		name, args, ok := parseGeneric(s.Generic)
		if !ok {
			return fmt.Errorf("%s: malformed x-generic %q", s.Name, s.Generic)
		}
		if groups[name] == nil {
			order = append(order, name)
		}
		groups[name] = append(groups[name], genericInstance{schema: s, args: args})
	}
	for _, name := range order {
		insts := groups[name]
		params := make([]string, len(insts[0].args))
		for i := range params {
			params[i] = "T"
			if len(params) > 1 {
				params[i] = fmt.Sprintf("T%d", i+1)
			}
		}
		shape := ""
		var members []string
		for _, in := range insts {
			if len(in.args) != len(params) {
				return fmt.Errorf("%s: %s takes %d type arguments", in.schema.Name, name, len(params))
			}
			subst := map[string]string{}
			for i, a := range in.args {
				subst[a] = params[i]
			}
			s := m.genericShape(in.schema, subst)
			if shape != "" && s != shape {
				return fmt.Errorf("%s does not have the shape of %s: %s vs %s", in.schema.Name, name, s, shape)
			}
			shape = s
			members = append(members, in.schema.Name)
		}
		m.doc("", fmt.Sprintf("%s is the generic shape of %s: each is %s of its argument.", name, strings.Join(members, ", "), name))
		m.p("export type %s<%s> = %s;", name, strings.Join(params, ", "), shape)
		m.p("")
	}
	return nil
}

// genericShape renders a union as an inline type, with the type arguments of subst replaced.
func (m *model) genericShape(s *wiregen.Schema, subst map[string]string) string {
	var variants []string
	for _, v := range s.Variants {
		var fields []string
		if s.Kind == wiregen.KindInternalUnion {
			fields = append(fields, propName(s.Tag)+": "+jsString(v.TagValue))
		}
		for _, f := range v.Fields {
			fields = append(fields, m.fieldDecl(f, subst))
		}
		obj := "{ " + strings.Join(fields, "; ") + " }"
		if s.Kind == wiregen.KindExternalUnion {
			inner := obj
			if v.Wrapped != nil {
				inner = m.tsTypeSubst(*v.Wrapped, subst)
			}
			obj = "{ " + propName(v.TagValue) + ": " + inner + " }"
		}
		variants = append(variants, obj)
	}
	return strings.Join(variants, " | ")
}
