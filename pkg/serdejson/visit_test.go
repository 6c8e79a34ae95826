package serdejson_test

import (
	"testing"

	"github.com/codemodehq/codemode/pkg/serdejson"
)

// The expectations mirror cases serde_json 1.0.87 produced for pkg/modeltool's ExecWaitArgs
// (waitargs_test.go), reduced to the primitive that decides them.
func TestDeserializePrimitivesMatchSerdeJSON(t *testing.T) {
	cases := []struct {
		input, want string
		run         func(d *serdejson.Deserializer) error
	}{
		{"1", "invalid type: integer `1`, expected a string at line 1 column 1", func(d *serdejson.Deserializer) error {
			_, err := d.DeserializeString()
			return err
		}},
		{"null", "invalid type: null, expected a boolean at line 1 column 4", func(d *serdejson.Deserializer) error {
			_, err := d.DeserializeBool()
			return err
		}},
		{"-5", "invalid value: integer `-5`, expected u64 at line 1 column 2", func(d *serdejson.Deserializer) error {
			_, err := d.DeserializeU64("u64")
			return err
		}},
		{"1e3", "invalid type: floating point `1000.0`, expected usize at line 1 column 3", func(d *serdejson.Deserializer) error {
			_, err := d.DeserializeOptionU64("usize")
			return err
		}},
		{"nulx", "expected ident at line 1 column 4", func(d *serdejson.Deserializer) error {
			_, err := d.DeserializeOptionU64("usize")
			return err
		}},
		{"5", "invalid type: integer `5`, expected struct S at line 1 column 1", func(d *serdejson.Deserializer) error {
			return d.DeserializeStruct("struct S", nil, nil)
		}},
		{"{}", "missing field `a` at line 1 column 2", func(d *serdejson.Deserializer) error {
			return d.DeserializeStruct("struct S", func() error { return serdejson.Custom("missing field `a`") }, nil)
		}},
		{`{"a": "1",}`, "trailing comma at line 1 column 11", func(d *serdejson.Deserializer) error {
			return d.DeserializeStruct("struct S", func() error { return visitStrings(d) }, nil)
		}},
		{`["1", "2"]`, "trailing characters at line 1 column 7", func(d *serdejson.Deserializer) error {
			return d.DeserializeStruct("struct S", nil, func() error {
				if _, err := d.NextElement(true); err != nil {
					return err
				}
				_, err := d.DeserializeString()
				return err
			})
		}},
	}
	for _, tc := range cases {
		err := tc.run(serdejson.NewDeserializer([]byte(tc.input)))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n got %v\nwant %s", tc.input, err, tc.want)
		}
	}
}

// visitStrings is a visitor of an object whose members are all strings.
func visitStrings(d *serdejson.Deserializer) error {
	for first := true; ; first = false {
		_, more, err := d.NextKey(first)
		if err != nil || !more {
			return err
		}
		if err := d.ObjectColon(); err != nil {
			return err
		}
		if _, err := d.DeserializeString(); err != nil {
			return err
		}
	}
}
