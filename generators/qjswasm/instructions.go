package qjswasm

import "fmt"

// A walker over function bodies: it knows every instruction's immediates (the MVP, sign
// extension, saturating truncation, bulk memory and reference types), enough to copy a body while
// inserting code after chosen instructions. An opcode it does not know (SIMD, atomics, exceptions)
// stops the transform: a module compiled with those needs the walker extended, not guessed at.

// Opcodes the walker treats specially.
const (
	opBlock       = 0x02
	opLoop        = 0x03
	opIf          = 0x04
	opBrTable     = 0x0e
	opCallDirect  = 0x10
	opCallIndir   = 0x11
	opSelectTyped = 0x1c
	opGlobalGet   = 0x23
	opGlobalSet   = 0x24
	opI32Const    = 0x41
	opI64Const    = 0x42
	opF32Const    = 0x43
	opF64Const    = 0x44
	opI32Eqz      = 0x45
	opI32Sub      = 0x6b
	opI32Add      = 0x6a
	opI32LtU      = 0x49
	opI32GeU      = 0x4f
	opI32Or       = 0x72
	opLocalGet    = 0x20
	opReturn      = 0x0f
	opDrop        = 0x1a
	opEnd         = 0x0b
	opRefNull     = 0xd0
	opRefFunc     = 0xd2
	opPrefixFC    = 0xfc
	blockEmpty    = 0x40
)

// skipLEB skips one LEB128 number of any width.
func (r *reader) skipLEB() error {
	for {
		c, err := r.byte()
		if err != nil {
			return err
		}
		if c&0x80 == 0 {
			return nil
		}
	}
}

// skipLEBs skips n LEB128 numbers.
func (r *reader) skipLEBs(n int) error {
	for range n {
		if err := r.skipLEB(); err != nil {
			return err
		}
	}
	return nil
}

// skipBlockType skips a block type: empty, a value type, or a type index (a signed LEB128).
func (r *reader) skipBlockType() error {
	c, err := r.byte()
	if err != nil {
		return err
	}
	if c == blockEmpty || (c >= 0x6f && c <= 0x7f) {
		return nil
	}
	r.pos--
	return r.skipLEB()
}

// skipImmediates skips the immediates of the instruction whose opcode was just read.
func (r *reader) skipImmediates(op byte) error {
	switch {
	case op == opBlock || op == opLoop || op == opIf:
		return r.skipBlockType()
	case op == 0x0c || op == 0x0d || op == opCallDirect || (op >= 0x20 && op <= 0x26) || op == opRefFunc:
		// br, br_if, call, local.get/set/tee, global.get/set, table.get/set, ref.func
		return r.skipLEB()
	case op == opBrTable:
		n, err := r.u32()
		if err != nil {
			return err
		}
		return r.skipLEBs(int(n) + 1)
	case op == opCallIndir:
		return r.skipLEBs(2)
	case op == opSelectTyped:
		n, err := r.u32()
		if err != nil {
			return err
		}
		_, err = r.take(int(n))
		return err
	case op >= 0x28 && op <= 0x3e: // loads and stores: alignment and offset
		return r.skipLEBs(2)
	case op == 0x3f || op == 0x40 || op == opRefNull: // memory.size, memory.grow: a memory index byte
		_, err := r.byte()
		return err
	case op == opI32Const || op == opI64Const:
		return r.skipLEB()
	case op == opF32Const:
		_, err := r.take(4)
		return err
	case op == opF64Const:
		_, err := r.take(8)
		return err
	case op == opPrefixFC:
		return r.skipPrefixFC()
	case op <= 0x01 || op == 0x05 || op == opEnd || op == 0x0f || op == opDrop || op == 0x1b ||
		(op >= opI32Eqz && op <= 0xc4) || op == 0xd1:
		// unreachable, nop, else, end, return, drop, select, the numeric instructions, ref.is_null
		return nil
	}
	return fmt.Errorf("qjswasm: unknown opcode 0x%02x at byte %d of a function body", op, r.pos-1)
}

// skipPrefixFC skips a 0xFC instruction: saturating truncation, bulk memory and table operations.
func (r *reader) skipPrefixFC() error {
	sub, err := r.u32()
	if err != nil {
		return err
	}
	switch {
	case sub <= 7: // the saturating truncations
		return nil
	case sub == 8: // memory.init: data index, memory index
		return r.skipLEBs(2)
	case sub == 9 || sub == 13 || (sub >= 15 && sub <= 17): // data.drop, elem.drop, table.grow/size/fill
		return r.skipLEB()
	case sub == 10: // memory.copy: two memory indexes
		return r.skipLEBs(2)
	case sub == 11: // memory.fill: one memory index
		return r.skipLEB()
	case sub == 12 || sub == 14: // table.init, table.copy
		return r.skipLEBs(2)
	}
	return fmt.Errorf("qjswasm: unknown instruction 0xfc %d in a function body", sub)
}
