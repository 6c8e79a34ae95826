package toolprovider

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/codemodehq/codemode/schemas/manifest"
)

// manifestSchemaURL is the manifest schema's $id; the compiler resolves it to the embedded copy.
const manifestSchemaURL = "https://schemas.codemode.dev/manifest/v1/tools.schema.json"

// The formats the manifest schema names. Their error texts are the messages a user reads after
// the value's pointer, so they say what is expected, not what failed.
var (
	identifierPattern = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)
	envNamePattern    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

	manifestFormats = []*jsonschema.Format{
		{Name: "go-duration", Validate: stringFormat(validDuration)},
		{Name: "identifier", Validate: stringFormat(func(s string) error {
			if !identifierPattern.MatchString(s) {
				return fmt.Errorf("must be a JavaScript identifier (ASCII letters, digits, _ and $, not starting with a digit), not %q", s)
			}
			return nil
		})},
		{Name: "env-name", Validate: stringFormat(checkEnvName)},
		{Name: "http-url", Validate: stringFormat(validHTTPURL)},
	}
)

// checkEnvName accepts the names a shell accepts for a variable.
func checkEnvName(s string) error {
	if !envNamePattern.MatchString(s) {
		return fmt.Errorf("must be an environment variable name like HOME or GOCACHE, not %q", s)
	}
	return nil
}

// stringFormat applies check to strings; a format says nothing about other types (the schema's
// "type" does).
func stringFormat(check func(string) error) func(any) error {
	return func(v any) error {
		if s, ok := v.(string); ok {
			return check(s)
		}
		return nil
	}
}

// validDuration accepts what time.ParseDuration accepts, if positive: a timeout of zero would
// kill every command at once.
func validDuration(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return fmt.Errorf("must be a duration like \"30s\", not %q", s)
	}
	return nil
}

// manifestSchema compiles the embedded schema once. It cannot fail unless the embedded document
// is broken, which TestManifestSchemaCompiles catches.
var manifestSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(manifest.ToolsV1))
	if err != nil {
		return nil, fmt.Errorf("the embedded manifest schema: %w", err)
	}
	c := newCompiler()
	c.AssertFormat()
	for _, f := range manifestFormats {
		c.RegisterFormat(f)
	}
	if err := c.AddResource(manifestSchemaURL, doc); err != nil {
		return nil, fmt.Errorf("the embedded manifest schema: %w", err)
	}
	s, err := c.Compile(manifestSchemaURL)
	if err != nil {
		return nil, fmt.Errorf("the embedded manifest schema: %w", err)
	}
	return s, nil
})

// newCompiler returns a compiler that reads nothing from files or the network: a $ref must
// point into the document itself.
func newCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(jsonschema.SchemeURLLoader{})
	return c
}

// compileToolSchema compiles a tool's input or output schema (2020-12 by default, no loader).
func compileToolSchema(raw []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	const loc = "urn:codemode:tool-schema"
	c := newCompiler()
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	return c.Compile(loc)
}

// schemaProblems validates the decoded manifest doc against the manifest schema.
func schemaProblems(doc any) ([]Problem, error) {
	s, err := manifestSchema()
	if err != nil {
		return nil, err
	}
	err = s.Validate(doc)
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, fmt.Errorf("validating the manifest: %w", err)
	}
	var problems []Problem
	for _, leaf := range leaves(ve) {
		problems = append(problems, Problem{Pointer: pointer(leaf.at...), Message: leafMessage(leaf.kind)})
	}
	slices.SortStableFunc(problems, func(a, b Problem) int { return comparePointers(a.Pointer, b.Pointer) })
	return slices.Compact(problems), nil
}

// comparePointers orders JSON Pointers as the places they name appear in a document: array
// indices numerically (/tools/2 before /tools/10), names by their text.
func comparePointers(a, b string) int {
	ta, tb := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(ta) && i < len(tb); i++ {
		na, errA := strconv.Atoi(ta[i])
		nb, errB := strconv.Atoi(tb[i])
		c := cmp.Compare(ta[i], tb[i])
		if errA == nil && errB == nil {
			c = cmp.Compare(na, nb)
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(ta), len(tb))
}

// leaf is one concrete complaint of a validation error: a failed keyword at an instance location.
type leaf struct {
	at   []string // JSON Pointer tokens
	kind jsonschema.ErrorKind
}

// leaves flattens a validation error tree to the errors that have no causes: the concrete
// complaints, each at its own instance location.
//
// Complaints about property names are left out: jsonschema v6.0.3 gives them a location that
// shares its array with the validator's working path (validator.go, propertyNames), so by the
// time anyone reads it, it may name another property. The one propertyNames of the manifest
// schema (env.set's names) is checked again by environment, at the right place.
func leaves(ve *jsonschema.ValidationError) []leaf {
	if _, ok := ve.ErrorKind.(*kind.PropertyNames); ok {
		return nil
	}
	if len(ve.Causes) == 0 {
		return []leaf{{at: ve.InstanceLocation, kind: ve.ErrorKind}}
	}
	var out []leaf
	for _, c := range ve.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

var englishPrinter = message.NewPrinter(language.English)

// leafMessage says in plain words what one failed keyword expects. Kinds the manifest schema
// cannot produce keep the validator's own text.
func leafMessage(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Format:
		return k.Err.Error()
	case *kind.Required:
		if len(k.Missing) == 1 {
			return fmt.Sprintf("the required property %q is missing", k.Missing[0])
		}
		return "the required properties " + quoteAll(k.Missing) + " are missing"
	case *kind.AdditionalProperties:
		if len(k.Properties) == 1 {
			return fmt.Sprintf("unknown property %q", k.Properties[0])
		}
		return "unknown properties " + quoteAll(k.Properties)
	case *kind.Type:
		return "must be " + typeNames(k.Want) + ", not " + withArticle(k.Got)
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = fmt.Sprintf("%q", w)
		}
		return "must be " + strings.Join(want, " or ") + fmt.Sprintf(", not %q", fmt.Sprint(k.Got))
	case *kind.MinItems:
		return fmt.Sprintf("must have at least %d %s", k.Want, plural(k.Want, "item"))
	case *kind.MinLength:
		return "must not be empty"
	case *kind.Minimum:
		return "must be at least " + k.Want.RatString()
	case *kind.Maximum:
		return "must be at most " + k.Want.RatString()
	case *kind.UniqueItems:
		return fmt.Sprintf("items %d and %d are the same", k.Duplicates[0], k.Duplicates[1])
	default:
		return k.LocalizedString(englishPrinter)
	}
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

func typeNames(types []string) string {
	named := make([]string, len(types))
	for i, t := range types {
		named[i] = withArticle(t)
	}
	return strings.Join(named, " or ")
}

// withArticle names a JSON type as a noun phrase: "an object", "a string", "null".
func withArticle(jsonType string) string {
	switch jsonType {
	case "null":
		return "null"
	case "object", "array", "integer":
		return "an " + jsonType
	default:
		return "a " + jsonType
	}
}

func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}
