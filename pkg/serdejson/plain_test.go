package serdejson_test

import (
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/serdejson"
)

// slowPlainPrefix is the definition PlainPrefix must agree with, one byte at a time.
func slowPlainPrefix(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			return i
		}
	}
	return len(s)
}

func slowPlainASCIIPrefix(s string) int {
	return min(slowPlainPrefix(s), slowASCIIPrefix(s))
}

func slowASCIIPrefix(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return i
		}
	}
	return len(s)
}

// TestPrefixesAgreeWithTheirDefinitions puts every byte value at every position of a word, after
// plain runs of every length around a word, beside neighbours that could carry a borrow.
func TestPrefixesAgreeWithTheirDefinitions(t *testing.T) {
	for _, fill := range []byte{'x', 0x7f, 0x80, 0xff, 0x21, '#', '[', ']', 0x20, 0x5d, 0x23} {
		for lead := range 20 {
			for c := range 256 {
				for _, tail := range []string{"", "x", "\x00", "abcdefgh", "\"", "\\"} {
					s := strings.Repeat(string([]byte{fill}), lead) + string([]byte{byte(c)}) + tail
					if got, want := serdejson.PlainPrefix(s), slowPlainPrefix(s); got != want {
						t.Fatalf("PlainPrefix(%q) = %d, want %d", s, got, want)
					}
					if got, want := serdejson.PlainPrefix([]byte(s)), slowPlainPrefix(s); got != want {
						t.Fatalf("PlainPrefix([]byte(%q)) = %d, want %d", s, got, want)
					}
					if got, want := serdejson.ASCIIPrefix(s), slowASCIIPrefix(s); got != want {
						t.Fatalf("ASCIIPrefix(%q) = %d, want %d", s, got, want)
					}
					if got, want := serdejson.PlainASCIIPrefix([]byte(s)), slowPlainASCIIPrefix(s); got != want {
						t.Fatalf("PlainASCIIPrefix(%q) = %d, want %d", s, got, want)
					}
				}
			}
		}
	}
}

func FuzzPlainPrefix(f *testing.F) {
	f.Add("plain text with a \" quote")
	f.Add("\x01\x02 \\ \xff\xfe")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := serdejson.PlainPrefix(s), slowPlainPrefix(s); got != want {
			t.Fatalf("PlainPrefix(%q) = %d, want %d", s, got, want)
		}
		if got, want := serdejson.ASCIIPrefix(s), slowASCIIPrefix(s); got != want {
			t.Fatalf("ASCIIPrefix(%q) = %d, want %d", s, got, want)
		}
		if got, want := serdejson.PlainASCIIPrefix(s), slowPlainASCIIPrefix(s); got != want {
			t.Fatalf("PlainASCIIPrefix(%q) = %d, want %d", s, got, want)
		}
	})
}

func BenchmarkPlainPrefix1MiB(b *testing.B) {
	s := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 1<<20/45)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if serdejson.PlainPrefix(s) != len(s) {
			b.Fatal("not plain")
		}
	}
}

func BenchmarkPlainPrefixByteAtATime1MiB(b *testing.B) {
	s := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 1<<20/45)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if slowPlainPrefix(s) != len(s) {
			b.Fatal("not plain")
		}
	}
}
