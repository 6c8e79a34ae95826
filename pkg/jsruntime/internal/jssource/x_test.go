package jssource

import (
	"testing"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/js"
)

func BenchmarkXParse(b *testing.B) {
	src := cell2k(b)
	buf := []byte(src + " ")[:len(src)]
	for b.Loop() {
		parseProgram(buf)
	}
}
func BenchmarkXLex(b *testing.B) {
	src := cell2k(b)
	buf := []byte(src + " ")[:len(src)]
	for b.Loop() {
		lx := js.NewLexer(parse.NewInputBytes(buf))
		for {
			if tt, _ := lx.Next(); tt == js.ErrorToken {
				break
			}
		}
	}
}
func BenchmarkXPrint(b *testing.B) {
	src := cell2k(b)
	buf := []byte(src + " ")[:len(src)]
	tree, _ := parseProgram(buf)
	f, _ := collect(tree, buf)
	for b.Loop() {
		print(buf, goalModule, &f, nil)
	}
}
func BenchmarkXCollect(b *testing.B) {
	src := cell2k(b)
	buf := []byte(src + " ")[:len(src)]
	tree, _ := parseProgram(buf)
	for b.Loop() {
		collect(tree, buf)
	}
}
