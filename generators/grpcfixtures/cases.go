package main

import (
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// fixture is one file of the tree.
type fixture struct {
	// message is the directory: the message's name relative to its package.
	message string
	// name is the case, the file name without ".json".
	name  string
	value proto.Message
}

// buildFixtures returns every case of every message declared in file, nested messages included.
// The messages are the generated Go types (found in the global registry), so a fixture the
// generated code cannot represent fails here rather than in a test.
func buildFixtures(file protoreflect.FileDescriptor) ([]fixture, error) {
	var fixtures []fixture
	var walk func(protoreflect.MessageDescriptors) error
	walk = func(messages protoreflect.MessageDescriptors) error {
		for i := range messages.Len() {
			md := messages.Get(i)
			cases, err := messageCases(md, file.Package())
			if err != nil {
				return err
			}
			fixtures = append(fixtures, cases...)
			if err := walk(md.Messages()); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(file.Messages()); err != nil {
		return nil, err
	}
	return fixtures, nil
}

// messageCases builds the cases of one message: minimal, full, one per oneof member and, if the
// message has proto3 optional fields, optional_defaults.
func messageCases(md protoreflect.MessageDescriptor, pkg protoreflect.FullName) ([]fixture, error) {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
	if err != nil {
		return nil, fmt.Errorf("message %s has no generated Go type: %w", md.FullName(), err)
	}
	dir := string(md.FullName())[len(pkg)+1:]
	newCase := func(name string) fixture {
		return fixture{message: dir, name: name, value: mt.New().Interface()}
	}

	minimal := newCase("minimal")
	full := newCase("full")
	if err := fill(full.value.ProtoReflect(), nil, nil); err != nil {
		return nil, err
	}
	cases := []fixture{minimal, full}

	oneofs := md.Oneofs()
	for i := range oneofs.Len() {
		oneof := oneofs.Get(i)
		if oneof.IsSynthetic() {
			continue // a proto3 optional field, not a oneof on the wire
		}
		members := oneof.Fields()
		for j := range members.Len() {
			member := members.Get(j)
			c := newCase("oneof_" + string(member.Name()))
			if err := fill(c.value.ProtoReflect(), nil, map[protoreflect.FullName]protoreflect.FieldNumber{
				oneof.FullName(): member.Number(),
			}); err != nil {
				return nil, err
			}
			cases = append(cases, c)
		}
	}

	if hasOptionalFields(md) {
		c := newCase("optional_defaults")
		setOptionalsToZero(c.value.ProtoReflect())
		cases = append(cases, c)
	}
	return cases, nil
}

// fill sets every field of m to a deterministic non-default value. Of each oneof it sets the
// member named in chosen, or the first member. Nested messages are filled recursively (with the
// first member of their oneofs); a message type already being filled higher up (recursion) is
// left empty. Map fields are not supported: the schema has none, and a silent guess would hide
// a fixture nobody designed.
func fill(m protoreflect.Message, filling []protoreflect.FullName, chosen map[protoreflect.FullName]protoreflect.FieldNumber) error {
	md := m.Descriptor()
	for _, name := range filling {
		if name == md.FullName() {
			return nil
		}
	}
	filling = append(filling, md.FullName())

	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if !isChosenMember(fd, chosen) {
			continue
		}
		if fd.IsMap() {
			return fmt.Errorf("field %s: map fields are not supported by grpcfixtures", fd.FullName())
		}
		if fd.IsList() {
			list := m.Mutable(fd).List()
			element := list.NewElement()
			if fd.Message() != nil {
				if err := fill(element.Message(), filling, nil); err != nil {
					return err
				}
			} else {
				element = scalarValue(fd)
			}
			list.Append(element)
			continue
		}
		if fd.Message() != nil {
			nested := m.NewField(fd)
			if err := fill(nested.Message(), filling, nil); err != nil {
				return err
			}
			m.Set(fd, nested)
			continue
		}
		m.Set(fd, scalarValue(fd))
	}
	return nil
}

// isChosenMember reports whether fill sets fd: always for a field outside a (real) oneof, and for
// a oneof member only if it is the chosen one (by default the first).
func isChosenMember(fd protoreflect.FieldDescriptor, chosen map[protoreflect.FullName]protoreflect.FieldNumber) bool {
	oneof := fd.ContainingOneof()
	if oneof == nil || oneof.IsSynthetic() {
		return true
	}
	if number, ok := chosen[oneof.FullName()]; ok {
		return fd.Number() == number
	}
	return oneof.Fields().Get(0).Number() == fd.Number()
}

// hasOptionalFields reports whether md has a proto3 `optional` field.
func hasOptionalFields(md protoreflect.MessageDescriptor) bool {
	fields := md.Fields()
	for i := range fields.Len() {
		if fields.Get(i).HasOptionalKeyword() {
			return true
		}
	}
	return false
}

// setOptionalsToZero sets every proto3 `optional` field of m to its zero value (an empty message
// for message fields). Presence makes these differ from unset fields on the wire.
func setOptionalsToZero(m protoreflect.Message) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if !fd.HasOptionalKeyword() {
			continue
		}
		if fd.Message() != nil {
			m.Set(fd, m.NewField(fd))
			continue
		}
		m.Set(fd, fd.Default())
	}
}
