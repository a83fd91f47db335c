package evsum

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evtools/evtools/internal/jsontext"
	"github.com/evtools/evtools/internal/summary"
	"github.com/evtools/evtools/internal/term"
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
	var b []byte
	switch format {
	case "jsonl":
		if !tty {
			// Encoded where the records are built, on every core; a
			// record with a huge value (a run_id) in pieces, not copied.
			return st.EachEncoded(func(b []byte, r *summary.Record) []byte {
				if b = r.AppendShortJSON(b); b != nil {
					b = append(b, '\n')
				}
				return b
			}, func(e []byte, r *summary.Record) error {
				if e == nil {
					b, _ = r.WriteJSON(out, b)
					e = []byte("\n")
				}
				out.Write(e)
				return out.Err()
			})
		}
		return st.EachRecord(func(r *summary.Record) error {
			b = escapeJSONControls(r.AppendJSON(b[:0]))
			out.WriteLine(b)
			return out.Err()
		})
	case "json":
		out.WriteString("[\n")
		first := true
		err := st.EachRecord(func(r *summary.Record) error {
			if !first {
				out.WriteString(",\n")
			}
			first = false
			if !tty {
				b, _ = r.WriteJSON(out, b)
				return out.Err()
			}
			out.Write(escapeJSONControls(r.AppendJSON(b[:0])))
			return out.Err()
		})
		if err != nil {
			return err
		}
		out.WriteString("\n]\n")
	case "table":
		writeTable(out, st, cx, spec)
	case "md":
		writeMarkdown(out, st, cx, spec.cols)
	case "csv":
		return writeCSV(out, st, tty)
	case "html":
		return writeHTML(out, st, cx, spec.cols)
	}
	return out.Err()
}

// escapeJSONControls rewrites DEL and the C1 controls of JSON text as
// \u00XX escapes. Outside strings JSON has only ASCII, so they are always
// inside a string, and the escaped text decodes to the same value.
func escapeJSONControls(b []byte) []byte {
	const hex = "0123456789abcdef"
	var out []byte
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == 0x7f || r >= 0x80 && r <= 0x9f {
			if out == nil {
				out = append(make([]byte, 0, len(b)+8), b[:i]...)
			}
			out = append(out, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
		} else if out != nil {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	if out == nil {
		return b
	}
	return out
}

// groupText is a key value for people: strings without quotes, null as
// "-", other JSON as it is.
func groupText(raw string) string {
	switch raw {
	case "null":
		return "-"
	case `""`:
		return `""`
	}
	if strings.HasPrefix(raw, `"`) {
		var s string
		if json.Unmarshal([]byte(raw), &s) == nil {
			return s
		}
	}
	return raw
}

func outcomesText(r *summary.Record) string {
	var parts []string
	for _, o := range r.Outcomes {
		parts = append(parts, fmt.Sprintf("%s %d", o.Name, o.N))
	}
	return strings.Join(parts, ", ")
}

func num(f float64, has bool) string {
	if !has {
		return "-"
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// costText is the cost to 4 decimals (summary.CostText).
func costText(r *summary.Record) string { return summary.CostText(r.Counts[summary.CostNano]) }

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
		b.WriteString(" " + c.head + " |")
	}
	b.WriteString("\n|")
	for _, c := range cols {
		if c.numeric {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	out.Write(b.Bytes())
	var problems []string
	eachRow(st, func(r *summary.Record) error {
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
			b.WriteString("- " + mdCell(p) + "\n")
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
	outcomeSet, toolSet := map[string]bool{}, map[string]bool{}
	eachRow(st, func(r *summary.Record) error {
		for _, o := range r.Outcomes {
			outcomeSet[o.Name] = true
		}
		for _, t := range r.Tools {
			toolSet[t.Name] = true
		}
		return nil
	})
	outcomes, tools := sortedKeys(outcomeSet), sortedKeys(toolSet)
	names := keyNames(st)
	var head []string
	for _, n := range names {
		head = append(head, "group."+n)
	}
	// With a breakdown, a column of its key: empty on a group's row, the
	// model on the rows of its breakdown, which follow it and repeat its
	// keys.
	var part string
	if bd := st.Options().Breakdown; len(bd) > 0 {
		part = bd[0].Name
		head = append(head, "breakdown."+part)
	}
	// the counters in their order, with the run-level fields after events,
	// the tools after tool_failures, and time and problems last, as in JSON
	for c := range summary.NumCounters {
		head = append(head, c.Column())
		switch c {
		case summary.Events:
			head = append(head, "runs", "first_ts", "last_ts")
			for _, o := range outcomes {
				head = append(head, "outcomes."+o)
			}
		case summary.ToolFailures:
			for _, t := range tools {
				head = append(head, "tools."+t+".calls", "tools."+t+".failed")
			}
		}
	}
	head = append(head, "wall_seconds.sum", "wall_seconds.p50", "wall_seconds.p95", "wall_seconds.max",
		"latency_ms.p50", "latency_ms.p95", "latency_ms.max", "problems")
	w := csv.NewWriter(out)
	w.Write(esc(head))
	var parent *summary.Record // of the rows of a breakdown
	err := eachRow(st, func(r *summary.Record) error {
		var row []string
		g := r
		if r.Nested {
			g = parent
		} else {
			parent = r
		}
		for k := range names {
			switch {
			case g.Other > 0 && k == 0:
				row = append(row, otherText(g))
				continue
			case g.Total || g.Other > 0:
				row = append(row, "")
				continue
			}
			row = append(row, csvValue(g.Vals[k]))
		}
		switch {
		case part != "" && r.Nested:
			row = append(row, csvValue(r.Vals[0]))
		case part != "":
			row = append(row, "")
		}
		ts := func(us int64) string {
			if !r.HasTS {
				return ""
			}
			return fixed(us, 6)
		}
		for c := range summary.NumCounters {
			row = append(row, string(r.AppendCounter(nil, c)))
			switch c {
			case summary.Events:
				row = append(row, itoa(r.Runs), ts(r.FirstTS), ts(r.LastTS))
				oc := map[string]int64{}
				for _, o := range r.Outcomes {
					oc[o.Name] = o.N
				}
				for _, o := range outcomes {
					row = append(row, itoa(oc[o]))
				}
			case summary.ToolFailures:
				tc := map[string]summary.ToolStat{}
				for _, t := range r.Tools {
					tc[t.Name] = t
				}
				for _, t := range tools {
					row = append(row, itoa(tc[t].Calls), itoa(tc[t].Failed))
				}
			}
		}
		opt := func(f float64, has bool) string {
			if !has {
				return ""
			}
			return strconv.FormatFloat(f, 'f', -1, 64)
		}
		sum := ""
		if r.Wall.Has {
			sum = fixed(r.WallSumUS, 6)
		}
		row = append(row, sum,
			opt(r.Wall.P50, r.Wall.Has), opt(r.Wall.P95, r.Wall.Has), opt(r.Wall.Max, r.Wall.Has),
			opt(r.Latency.P50, r.Latency.Has), opt(r.Latency.P95, r.Latency.Has), opt(r.Latency.Max, r.Latency.Has),
			strings.Join(r.Problems, "; "))
		w.Write(esc(row))
		return w.Error()
	})
	w.Flush()
	if err != nil {
		return err
	}
	return w.Error()
}

// csvValue is a key's value in csv: a string without its quotes, other
// JSON as it is.
func csvValue(v string) string {
	if strings.HasPrefix(v, `"`) {
		return groupText(v)
	}
	return v
}

// fixed formats v/10^scale as the JSON output does.
func fixed(v int64, scale int) string { return string(jsontext.AppendFixed(nil, v, scale)) }

func sortedKeys(m map[string]bool) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
