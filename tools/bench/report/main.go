// Command report pairs our Go benchmark results with the Node node:vm baseline measured in the
// same invocation and prints a Markdown table with ratios (ours / baseline), so noisy machines
// still give comparable numbers.
//
// Usage: report -ours ours.txt -base node.txt [-before before.txt] Pair...   where Pair is
// OurName=BaselineName, or OurName=BaselineName@unit to compare a reported metric (e.g.
// B/live-cell) instead of ns/op; BaselineName "-" means the workload has no baseline. With
// -before (our benchmarks at an earlier commit, run in the same invocation), the table also shows
// the earlier numbers and the ratio now / before.
// report -duration-ms 2s prints 2000 (tools/bench.sh passes -benchtime on to Node this way).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// result is one benchmark line: its ns/op and any extra metrics ("heap-bytes/session" → value).
type result struct {
	nsPerOp float64
	metrics map[string]float64
}

var benchLine = regexp.MustCompile(`^Benchmark(\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)

// parse reads Go benchmark output; when a name repeats (-count > 1), the last line wins.
func parse(r io.Reader) (map[string]result, error) {
	out := map[string]result{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		res := result{metrics: map[string]float64{}}
		fields := strings.Fields(m[2])
		for i := 0; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				continue
			}
			if fields[i+1] == "ns/op" {
				res.nsPerOp = v
			} else {
				res.metrics[fields[i+1]] = v
			}
		}
		out[m[1]] = res
	}
	return out, sc.Err()
}

func readFile(path string) (map[string]result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parse(f)
}

// value picks the number to compare: the named metric, or ns/op when unit is "".
func value(r result, unit string) (float64, bool) {
	if unit == "" || unit == "ns/op" {
		return r.nsPerOp, true
	}
	v, ok := r.metrics[unit]
	return v, ok
}

func human(v float64, unit string) string {
	if unit != "ns/op" {
		return fmt.Sprintf("%.0f %s", v, unit)
	}
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2f ms", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.1f µs", v/1e3)
	default:
		return fmt.Sprintf("%.0f ns", v)
	}
}

func main() {
	oursPath := flag.String("ours", "", "our go test -bench output")
	basePath := flag.String("base", "", "baseline benchmark output")
	beforePath := flag.String("before", "", "our benchmark output at an earlier commit (optional)")
	durationMs := flag.String("duration-ms", "", "print a Go duration (e.g. 2s) in milliseconds and exit")
	flag.Parse()
	if *durationMs != "" {
		d, err := time.ParseDuration(*durationMs)
		if err != nil {
			fmt.Fprintln(os.Stderr, "report:", err)
			os.Exit(2)
		}
		fmt.Println(d.Milliseconds())
		return
	}
	ours, err := readFile(*oursPath)
	if err == nil {
		var base, before map[string]result
		if base, err = readFile(*basePath); err == nil && *beforePath != "" {
			before, err = readFile(*beforePath)
		}
		if err == nil {
			err = printTable(os.Stdout, ours, base, before, flag.Args())
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

// printTable prints one row per pair. before may be nil.
func printTable(w io.Writer, ours, base, before map[string]result, pairs []string) error {
	if before != nil {
		fmt.Fprintln(w, "| workload | before | codemode (qjs) | node:vm baseline | codemode / node | now / before |")
		fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- |")
	} else {
		fmt.Fprintln(w, "| workload | codemode (qjs) | node:vm baseline | ratio |")
		fmt.Fprintln(w, "| --- | --- | --- | --- |")
	}
	for _, p := range pairs {
		on, bn, ok := strings.Cut(p, "=")
		if !ok {
			return fmt.Errorf("pair %q is not OurName=BaselineName[@unit]", p)
		}
		bn, unit, _ := strings.Cut(bn, "@")
		label := on
		if unit != "" {
			label += " (" + unit + ")"
		}
		if unit == "" {
			unit = "ns/op"
		}
		cells := []string{label}
		if before != nil {
			cells = append(cells, cell(before, on, unit))
		}
		cells = append(cells, cell(ours, on, unit), cell(base, bn, unit), ratio(ours, on, base, bn, unit))
		if before != nil {
			cells = append(cells, ratio(ours, on, before, on, unit))
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	return nil
}

// cell renders results[name]'s value in unit, or says it is missing.
func cell(results map[string]result, name, unit string) string {
	if name == "-" {
		return "—"
	}
	r, ok := results[name]
	if !ok {
		return presence(false)
	}
	v, ok := value(r, unit)
	if !ok {
		return presence(false)
	}
	return human(v, unit)
}

// ratio renders a[an] / b[bn] in unit, or "—" when either is missing.
func ratio(a map[string]result, an string, b map[string]result, bn, unit string) string {
	av, okA := value(a[an], unit)
	bv, okB := value(b[bn], unit)
	if _, ok := a[an]; !ok || !okA || !okB || bv <= 0 {
		return "—"
	}
	if _, ok := b[bn]; !ok {
		return "—"
	}
	return fmt.Sprintf("%.3g×", av/bv)
}

func presence(ok bool) string {
	if ok {
		return "ok"
	}
	return "missing"
}
