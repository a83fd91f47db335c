package evsum

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/evtools/evtools/internal/core/jsontext"
	"github.com/evtools/evtools/internal/core/term"
	"github.com/evtools/evtools/internal/folds/record"
	"github.com/evtools/evtools/internal/folds/summary"
	"github.com/evtools/evtools/pkg/jsonl"
)

// write renders the report. JSON Lines and JSON stream one record at a
// time; table, md and csv go over the records twice (widths, columns)
// rather than hold them all.
//
// On a terminal (tty) no control character of the data reaches it raw:
// JSON escapes C0 controls itself, and DEL and the C1 controls (U+009B is
// a CSI) are escaped as \u00XX too, which JSON reads as the same string;
// csv fields are escaped as in the table.
func write(out *jsonl.Writer, format string, st *summary.State, cx *cellCtx, spec tableSpec, tty bool) error {
	for _, f := range formatWriters {
		if f.name == format {
			return f.write(out, st, cx, spec, tty)
		}
	}
	return fmt.Errorf("--format %q: one of %s", format, strings.Join(formats, ", "))
}

// formatWriters are the report's formats, in the order --help lists
// them, each with its writer.
var formatWriters = []struct {
	name  string
	write func(out *jsonl.Writer, st *summary.State, cx *cellCtx, spec tableSpec, tty bool) error
}{
	{"table", func(out *jsonl.Writer, st *summary.State, cx *cellCtx, spec tableSpec, _ bool) error {
		if !writeNoEvents(out, st) {
			writeTable(out, st, cx, spec)
		}
		return out.Err()
	}},
	{"jsonl", func(out *jsonl.Writer, st *summary.State, _ *cellCtx, _ tableSpec, tty bool) error {
		return writeJSONL(out, st, tty)
	}},
	{"json", func(out *jsonl.Writer, st *summary.State, _ *cellCtx, _ tableSpec, tty bool) error {
		return writeJSON(out, st, tty)
	}},
	{"md", func(out *jsonl.Writer, st *summary.State, cx *cellCtx, spec tableSpec, _ bool) error {
		if !writeNoEvents(out, st) {
			writeMarkdown(out, st, cx, spec.cols)
		}
		return out.Err()
	}},
	{"csv", func(out *jsonl.Writer, st *summary.State, _ *cellCtx, _ tableSpec, tty bool) error {
		return writeCSV(out, st, tty)
	}},
	{"html", func(out *jsonl.Writer, st *summary.State, cx *cellCtx, spec tableSpec, _ bool) error {
		cols := spec.cols
		if !spec.chosen {
			cols = costFirst(cols)
		}
		return writeHTML(out, st, cx, cols)
	}},
}

// writeNoEvents says in words that st holds no event, and in which window
// they were looked for ("No events since 2026-11-01 00:00 UTC."), for the
// table and md, where a table of zeros under the message of a file that
// could not be read said nothing; false, writing nothing, when it holds
// some. The total comes first when there are no groups.
func writeNoEvents(out stringWriter, st *summary.State) bool {
	empty := false
	stop := errors.New("stop")
	st.EachRecord(func(r *record.Record) error {
		empty = r.Total && r.Counts[record.Events] == 0
		return stop
	})
	if empty {
		no := st.Options().NoEvents()
		out.WriteString(strings.ToUpper(no[:1]) + no[1:] + ".\n")
	}
	return empty
}

// formats are the formats' names, as --format takes them.
var formats = func() []string {
	var names []string
	for _, f := range formatWriters {
		names = append(names, f.name)
	}
	return names
}()

// writeJSONL writes a record a line.
func writeJSONL(out *jsonl.Writer, st *summary.State, tty bool) error {
	var b []byte
	if !tty {
		// Encoded where the records are built, on every core; a
		// record with a huge value (a run_id) in pieces, not copied.
		return st.EachEncoded(func(b []byte, r *record.Record) []byte {
			if b = r.AppendShortJSON(b); b != nil {
				b = append(b, '\n')
			}
			return b
		}, func(e []byte, r *record.Record) error {
			if e == nil {
				b, _ = r.WriteJSON(out, b)
				e = []byte("\n")
			}
			out.Write(e)
			return out.Err()
		})
	}
	return st.EachRecord(func(r *record.Record) error {
		b = jsontext.EscapeControls(r.AppendJSON(b[:0]))
		out.WriteLine(b)
		return out.Err()
	})
}

// writeJSON writes the records as one JSON array.
func writeJSON(out *jsonl.Writer, st *summary.State, tty bool) error {
	var b []byte
	out.WriteString("[\n")
	first := true
	err := st.EachRecord(func(r *record.Record) error {
		if !first {
			out.WriteString(",\n")
		}
		first = false
		if !tty {
			b, _ = r.WriteJSON(out, b)
			return out.Err()
		}
		out.Write(jsontext.EscapeControls(r.AppendJSON(b[:0])))
		return out.Err()
	})
	if err != nil {
		return err
	}
	out.WriteString("\n]\n")
	return out.Err()
}

func outcomesText(r *record.Record) string {
	var parts []string
	for _, o := range r.Outcomes {
		parts = append(parts, fmt.Sprintf("%s %d", o.Name, o.N))
	}
	return strings.Join(parts, ", ")
}

func keyNames(st *summary.State) []string {
	var names []string
	for _, k := range st.Options().By {
		names = append(names, k.Name)
	}
	return names
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

const (
	bold  = term.Bold
	red   = term.Red
	reset = term.Reset
)

func mdCell(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, "|", `\|`)
	return term.Escape(s)
}

func writeMarkdown(out *jsonl.Writer, st *summary.State, cx *cellCtx, cols []col) {
	var b bytes.Buffer
	b.WriteString("|")
	for _, c := range cols {
		b.WriteString(" " + c.header(false) + " |")
	}
	b.WriteString("\n|")
	for _, c := range cols {
		if c.numeric() {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	out.Write(b.Bytes())
	var problems []record.Problem
	eachRow(st, func(r *record.Record) error {
		b.Reset()
		b.WriteString("|")
		for i := range cols {
			c := mdCell(cols[i].cell(r, cx, 0))
			if r.Total && c != "" {
				c = "**" + c + "**"
			}
			b.WriteString(" " + c + " |")
		}
		b.WriteString("\n")
		out.Write(b.Bytes())
		if r.Total {
			problems = r.Problems
		}
		return out.Err()
	})
	if len(problems) > 0 {
		b.Reset()
		b.WriteString("\nProblems:\n\n")
		for _, p := range problems {
			b.WriteString("- " + mdCell(p.String()) + "\n")
		}
		out.Write(b.Bytes())
	}
}

// writeCSV writes one flat header: the group's keys, then every field,
// objects flattened with dots (tokens.input, tools.bash.calls,
// outcomes.ok) over the outcomes and tools any record has.
func writeCSV(out *jsonl.Writer, st *summary.State, tty bool) error {
	esc := func(row []string) []string {
		if tty {
			for i, c := range row {
				row[i] = term.Escape(c)
			}
		}
		return row
	}
	outcomes, tools := csvNames(st)
	names := keyNames(st)
	// With a breakdown, a column of its key: empty on a group's row, the
	// model on the rows of its breakdown, which follow it and repeat its
	// keys.
	part := ""
	if bd := st.Options().Breakdown; len(bd) > 0 {
		part = bd[0].Name
	}
	w := csv.NewWriter(out)
	w.Write(esc(csvHead(names, part, outcomes, tools)))
	var parent *record.Record // of the rows of a breakdown
	err := eachRow(st, func(r *record.Record) error {
		if !r.Nested {
			parent = r
		}
		row := csvKeys(parent, r, len(names), part != "")
		w.Write(esc(csvFields(row, r, outcomes, tools)))
		return w.Error()
	})
	w.Flush()
	if err != nil {
		return err
	}
	return w.Error()
}

// csvNames are the outcomes and the tools any record has, sorted.
func csvNames(st *summary.State) (outcomes, tools []string) {
	outcomeSet, toolSet := map[string]bool{}, map[string]bool{}
	eachRow(st, func(r *record.Record) error {
		for _, o := range r.Outcomes {
			outcomeSet[o.Name] = true
		}
		for _, t := range r.Tools {
			toolSet[t.Name] = true
		}
		return nil
	})
	return slices.Sorted(maps.Keys(outcomeSet)), slices.Sorted(maps.Keys(toolSet))
}

// csvHead is the csv header: the keys, the breakdown's (part, if any),
// then the fields, an object of names a column per name.
func csvHead(names []string, part string, outcomes, tools []string) []string {
	var head []string
	for _, n := range names {
		head = append(head, "group."+n)
	}
	if part != "" {
		head = append(head, "breakdown."+part)
	}
	for i := range record.Fields {
		f := &record.Fields[i]
		switch f.Shape {
		case record.ShapeOutcomes:
			for _, o := range outcomes {
				head = append(head, f.Path+"."+o)
			}
		case record.ShapeTools:
			for _, t := range tools {
				head = append(head, f.Path+"."+t+".calls", f.Path+"."+t+".failed")
			}
		default:
			head = append(head, f.Path)
		}
	}
	return head
}

// csvKeys are the key cells of row r, whose group is g's (its own, or
// for a row of a breakdown its parent's); part: a breakdown's column
// follows.
func csvKeys(g, r *record.Record, keys int, part bool) []string {
	var row []string
	for k := range keys {
		switch {
		case g.Other > 0 && k == 0:
			row = append(row, otherText(g))
		case g.Total || g.Other > 0:
			row = append(row, "")
		default:
			row = append(row, csvValue(g.Vals[k]))
		}
	}
	switch {
	case part && r.Nested:
		row = append(row, csvValue(r.Vals[0]))
	case part:
		row = append(row, "")
	}
	return row
}

// csvFields appends r's fields to row, as the JSON has them: a value
// the record has none of is empty, the problems are their sentences.
func csvFields(row []string, r *record.Record, outcomes, tools []string) []string {
	for i := range record.Fields {
		f := &record.Fields[i]
		switch f.Shape {
		case record.ShapeOutcomes:
			oc := map[string]int64{}
			for _, o := range r.Outcomes {
				oc[o.Name] = o.N
			}
			for _, o := range outcomes {
				row = append(row, itoa(oc[o]))
			}
		case record.ShapeTools:
			tc := map[string]record.ToolStat{}
			for _, t := range r.Tools {
				tc[t.Name] = t
			}
			for _, t := range tools {
				row = append(row, itoa(tc[t].Calls), itoa(tc[t].Failed))
			}
		case record.ShapeProblems:
			ps := make([]string, len(r.Problems))
			for i, p := range r.Problems {
				ps[i] = p.String()
			}
			row = append(row, strings.Join(ps, "; "))
		default:
			v, cell := f.Value(r), ""
			if v.Has {
				cell = string(f.AppendNumber(nil, v))
			}
			row = append(row, cell)
		}
	}
	return row
}

// csvValue is a key's value in csv: a string without its quotes, other
// JSON as it is.
func csvValue(v string) string {
	if strings.HasPrefix(v, `"`) {
		return record.ValueText(v)
	}
	return v
}
