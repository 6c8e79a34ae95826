package serdejson

// Long strings are most of the bytes a host moves: a megabyte of text() output, a tool's input or
// result. Every pass over them (quoting for a frame, measuring for the frame's budget, scanning and
// decoding a frame) looks for the same few bytes, and looking at eight at a time instead of one
// makes those passes several times faster on plain text.

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// PlainPrefix returns how many leading bytes of s a JSON string holds as they are: the bytes
// before the first control character (below 0x20), '"' or '\\'. Bytes from 0x80 up count as
// plain; whether they are valid UTF-8 is the caller's question.
func PlainPrefix[T string | []byte](s T) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if needsEscape(word(s, i)) {
			break
		}
	}
	for ; i < len(s); i++ {
		if stringByte[s[i]] != 0 {
			return i
		}
	}
	return i
}

// ASCIIPrefix returns how many leading bytes of s are below 0x80.
func ASCIIPrefix[T string | []byte](s T) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if word(s, i)&highs != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= 0x80 {
			return i
		}
	}
	return i
}

// PlainASCIIPrefix returns how many leading bytes of s are both plain (PlainPrefix) and ASCII:
// what a Latin-1 or byte string can copy into JSON unchanged.
func PlainASCIIPrefix[T string | []byte](s T) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if x := word(s, i); x&highs != 0 || needsEscape(x) {
			break
		}
	}
	for ; i < len(s); i++ {
		if stringByte[s[i]] != 0 || s[i] >= 0x80 {
			return i
		}
	}
	return i
}

// word is s[i:i+8] as a little-endian integer (the compiler makes it one load).
func word[T string | []byte](s T, i int) uint64 {
	t := s[i : i+8]
	return uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
		uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
}

// needsEscape reports whether any byte of x is below 0x20, '"' or '\\'. Each test is exact about
// whether such a byte exists (not about which one): hasZero's borrow can only run upward from a
// byte that is itself zero.
func needsEscape(x uint64) bool {
	below := (x - 0x20*ones) &^ x & highs
	return below|hasZero(x^('"'*ones))|hasZero(x^('\\'*ones)) != 0
}

// hasZero is nonzero when a byte of x is zero.
func hasZero(x uint64) uint64 { return (x - ones) &^ x & highs }
