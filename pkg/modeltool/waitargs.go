package modeltool

import (
	"errors"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/serdejson"
)

// waitArgsStruct is the Rust struct name serde quotes in wait argument errors.
const waitArgsStruct = "struct ExecWaitArgs"

// ParseWaitArguments decodes the JSON arguments of a wait call by the rules of Codex's wait
// handler (serde_json::from_str into ExecWaitArgs), since a model's call that Codex accepts must
// be accepted here and its error reaches the model verbatim
// (docs/protocol/javascript.md#the-wait-tool): cell_id is a required string; yield_time_ms a u64
// defaulting to codemode.DefaultWaitYieldTimeMs (null is rejected); max_tokens an optional usize;
// terminate a bool defaulting to false; other fields are ignored. Failures read "failed to parse
// function arguments: {serde_json error}", with serde_json's message and position, e.g. "failed to
// parse function arguments: missing field `cell_id` at line 1 column 2". Like serde, a JSON array
// is accepted as the fields in declaration order.
func ParseWaitArguments(arguments string) (WaitArguments, error) {
	v := waitArgsVisitor{d: serdejson.NewDeserializer([]byte(arguments))}
	err := v.d.DeserializeStruct(waitArgsStruct, v.visitMap, v.visitSeq)
	if err == nil {
		err = v.d.End()
	}
	if err != nil {
		return WaitArguments{}, errors.New("failed to parse function arguments: " + err.Error())
	}
	return v.args, nil
}

// waitArgsVisitor is the serde-derived visitor of Codex's ExecWaitArgs, driven by serde_json's
// streaming Deserializer so that the first error in input order is the one reported.
type waitArgsVisitor struct {
	d    *serdejson.Deserializer
	args WaitArguments
}

func (v *waitArgsVisitor) visitMap() error {
	seen := map[string]bool{}
	for first := true; ; first = false {
		key, more, err := v.d.NextKey(first)
		if err != nil {
			return err
		}
		if !more {
			break
		}
		known := key == "cell_id" || key == "yield_time_ms" || key == "max_tokens" || key == "terminate"
		if known && seen[key] {
			return serdejson.Custom("duplicate field `" + key + "`")
		}
		seen[key] = true
		if err := v.d.ObjectColon(); err != nil {
			return err
		}
		if err := v.field(key); err != nil {
			return err
		}
	}
	if !seen["cell_id"] {
		return serdejson.Custom("missing field `cell_id`")
	}
	if !seen["yield_time_ms"] {
		v.args.YieldTimeMs = ptrTo(codemode.DefaultWaitYieldTimeMs)
	}
	return nil
}

// field decodes the value of one member; unknown members are parsed and dropped.
func (v *waitArgsVisitor) field(key string) error {
	switch key {
	case "cell_id":
		return v.cellID()
	case "yield_time_ms":
		return v.yieldTimeMs()
	case "max_tokens":
		return v.maxTokens()
	case "terminate":
		return v.terminate()
	}
	return v.d.IgnoreValue()
}

// visitSeq accepts the fields positionally: [cell_id, yield_time_ms?, max_tokens?, terminate?].
func (v *waitArgsVisitor) visitSeq() error {
	v.args.YieldTimeMs = ptrTo(codemode.DefaultWaitYieldTimeMs)
	fields := []func() error{v.cellID, v.yieldTimeMs, v.maxTokens, v.terminate}
	for index, decode := range fields {
		more, err := v.d.NextElement(index == 0)
		if err != nil {
			return err
		}
		if !more {
			if index == 0 {
				return serdejson.Custom("invalid length 0, expected " + waitArgsStruct + " with 4 elements")
			}
			return nil
		}
		if err := decode(); err != nil {
			return err
		}
	}
	return nil
}

func (v *waitArgsVisitor) cellID() (err error) {
	v.args.CellID, err = v.d.DeserializeString()
	return err
}

func (v *waitArgsVisitor) yieldTimeMs() error {
	ms, err := v.d.DeserializeU64("u64")
	v.args.YieldTimeMs = &ms
	return err
}

func (v *waitArgsVisitor) maxTokens() (err error) {
	v.args.MaxTokens, err = v.d.DeserializeOptionU64("usize")
	return err
}

func (v *waitArgsVisitor) terminate() (err error) {
	v.args.Terminate, err = v.d.DeserializeBool()
	return err
}

func ptrTo[T any](v T) *T { return &v }
