// Command csv_query is an example tool for codemode's tool manifest (examples/tools.json): it
// selects rows of a CSV file (with a header line) of its working directory.
//
// Input (JSON on stdin):
//
//	{"path": "data/sales.csv", "where": {"region": "north"}, "columns": ["month", "units"],
//	 "sort_by": "units", "descending": true, "limit": 3}
//
// where (equality per column), columns, sort_by (numeric when every value is a number),
// descending and limit are optional. Output (JSON on stdout): {"columns": […], "rows": [[…], …],
// "matched": 7}, where matched counts the rows before the limit.
package main

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
)

type input struct {
	Path       string            `json:"path"`
	Where      map[string]string `json:"where"`
	Columns    []string          `json:"columns"`
	SortBy     string            `json:"sort_by"`
	Descending bool              `json:"descending"`
	Limit      int               `json:"limit"`
}

type output struct {
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
	Matched int        `json:"matched"`
}

func main() {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fail("reading the input: %v", err)
	}
	header, rows, err := readCSV(in.Path)
	if err != nil {
		fail("%v", err)
	}
	out, err := query(header, rows, in)
	if err != nil {
		fail("%v", err)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fail("writing the result: %v", err)
	}
}

// readCSV reads a CSV file of the working directory (inside an os.Root): its header and rows.
func readCSV(path string) ([]string, [][]string, error) {
	root, err := os.OpenRoot(".")
	if err != nil {
		return nil, nil, err
	}
	f, err := root.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(records) == 0 {
		return nil, nil, fmt.Errorf("%s has no header line", path)
	}
	return records[0], records[1:], nil
}

func query(header []string, rows [][]string, in input) (output, error) {
	index := func(name string) (int, error) {
		if i := slices.Index(header, name); i >= 0 {
			return i, nil
		}
		return 0, fmt.Errorf("no column %q (the columns are %q)", name, header)
	}
	matched := [][]string{}
	for _, row := range rows {
		keep := true
		for col, want := range in.Where {
			i, err := index(col)
			if err != nil {
				return output{}, err
			}
			keep = keep && row[i] == want
		}
		if keep {
			matched = append(matched, row)
		}
	}
	if in.SortBy != "" {
		i, err := index(in.SortBy)
		if err != nil {
			return output{}, err
		}
		sortRows(matched, i, in.Descending)
	}
	out := output{Columns: header, Rows: matched, Matched: len(matched)}
	if in.Limit > 0 {
		out.Rows = out.Rows[:min(in.Limit, len(out.Rows))]
	}
	if len(in.Columns) > 0 {
		return project(out, in.Columns, index)
	}
	return out, nil
}

// sortRows sorts by column i: numerically if every value there is a number, else as text.
func sortRows(rows [][]string, i int, descending bool) {
	numeric := !slices.ContainsFunc(rows, func(r []string) bool {
		_, err := strconv.ParseFloat(r[i], 64)
		return err != nil
	})
	slices.SortStableFunc(rows, func(a, b []string) int {
		c := cmp.Compare(a[i], b[i])
		if numeric {
			x, _ := strconv.ParseFloat(a[i], 64)
			y, _ := strconv.ParseFloat(b[i], 64)
			c = cmp.Compare(x, y)
		}
		if descending {
			return -c
		}
		return c
	})
}

// project keeps the named columns, in the order named.
func project(out output, columns []string, index func(string) (int, error)) (output, error) {
	idx := make([]int, len(columns))
	for k, name := range columns {
		i, err := index(name)
		if err != nil {
			return output{}, err
		}
		idx[k] = i
	}
	projected := make([][]string, len(out.Rows))
	for r, row := range out.Rows {
		projected[r] = make([]string, len(idx))
		for k, i := range idx {
			projected[r][k] = row[i]
		}
	}
	return output{Columns: columns, Rows: projected, Matched: out.Matched}, nil
}

// fail reports a problem on stderr and exits with status 1, which rejects the script's promise
// with the message.
func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "csv_query: "+format+"\n", args...)
	os.Exit(1)
}
