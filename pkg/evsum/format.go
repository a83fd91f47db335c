package evsum

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/evtools/evtools/pkg/cli"
	"github.com/evtools/evtools/pkg/jsonl"
	"github.com/evtools/evtools/pkg/summary"
)

func write(out *jsonl.Writer, format string, recs []summary.Record, loc *time.Location, color bool) error {
	switch format {
	case "jsonl":
		var b []byte
		for i := range recs {
			b = recs[i].AppendJSON(b[:0])
			out.WriteLine(b)
		}
	case "json":
		var b []byte
		out.WriteString("[\n")
		for i := range recs {
			b = append(recs[i].AppendJSON(b[:0]), ",\n"...)
			if i == len(recs)-1 {
				b[len(b)-2] = '\n'
				b = b[:len(b)-1]
			}
			out.Write(b)
		}
		out.WriteString("]\n")
	case "table":
		writeTable(out, recs, loc, color)
	case "md":
		writeMarkdown(out, recs, loc)
	case "csv":
		return writeCSV(out, recs)
	}
	return out.Err()
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

func costText(r *summary.Record) string {
	return strconv.FormatFloat(r.CostUSD(), 'f', 4, 64)
}

func firstText(r *summary.Record, loc *time.Location) string {
	if !r.HasTS {
		return "-"
	}
	return time.UnixMicro(r.FirstTS).In(loc).Format("2006-01-02 15:04:05")
}

// rows are the human columns of table and md: key columns first.
func rows(recs []summary.Record, loc *time.Location) (head []string, numeric []bool, body [][]string) {
	names := []string{"group"}
	if len(recs) > 0 && len(recs[0].Names) > 0 {
		names = recs[0].Names
	}
	head = append(head, names...)
	for range names {
		numeric = append(numeric, false)
	}
	cols := []string{"first", "runs", "events", "outcomes", "model calls", "tokens", "cost $", "tool calls", "failed", "errors", "wall p50 s", "wall p95 s", "latency p50 ms", "latency p95 ms", "problems"}
	nums := []bool{false, true, true, false, true, true, true, true, true, true, true, true, true, true, true}
	head = append(head, cols...)
	numeric = append(numeric, nums...)
	for i := range recs {
		r := &recs[i]
		var row []string
		for k := range names {
			switch {
			case r.Total && k == 0:
				row = append(row, "total")
			case r.Total || len(r.Vals) == 0:
				row = append(row, "")
			default:
				row = append(row, cli.Escape(groupText(r.Vals[k])))
			}
		}
		row = append(row, firstText(r, loc), itoa(r.Runs), itoa(r.Events), cli.Escape(outcomesText(r)),
			itoa(r.ModelCalls), itoa(r.Tokens[4]), costText(r), itoa(r.ToolCalls), itoa(r.ToolFails), itoa(r.Errors),
			num(r.Wall.P50, r.Wall.Has), num(r.Wall.P95, r.Wall.Has),
			num(r.Latency.P50, r.Latency.Has), num(r.Latency.P95, r.Latency.Has), itoa(int64(len(r.Problems))))
		body = append(body, row)
	}
	return head, numeric, body
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

const (
	bold  = "\033[1m"
	red   = "\033[31m"
	reset = "\033[0m"
)

func writeTable(out *jsonl.Writer, recs []summary.Record, loc *time.Location, color bool) {
	head, numeric, body := rows(recs, loc)
	width := make([]int, len(head))
	for _, row := range append([][]string{head}, body...) {
		for i, c := range row {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	line := func(row []string, style func(i int, c string) string) {
		var b strings.Builder
		for i, c := range row {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if numeric[i] {
				b.WriteString(pad)
			}
			b.WriteString(style(i, c))
			if !numeric[i] && i < len(row)-1 {
				b.WriteString(pad)
			}
		}
		out.WriteString(b.String() + "\n")
	}
	plain := func(_ int, c string) string { return c }
	if color {
		line(head, func(_ int, c string) string { return bold + c + reset })
	} else {
		line(head, plain)
	}
	errCols := map[string]bool{"failed": true, "errors": true, "problems": true}
	for n, row := range body {
		style := plain
		if color {
			total := n == len(body)-1
			style = func(i int, c string) string {
				switch {
				case errCols[head[i]] && c != "0":
					return red + c + reset
				case total:
					return bold + c + reset
				}
				return c
			}
		}
		line(row, style)
	}
	if ps := recs[len(recs)-1].Problems; len(ps) > 0 {
		out.WriteString("\nproblems:\n")
		for _, p := range ps {
			out.WriteString("  " + cli.Escape(p) + "\n")
		}
	}
}

func mdCell(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, "|", `\|`)
	return cli.Escape(s)
}

func writeMarkdown(out *jsonl.Writer, recs []summary.Record, loc *time.Location) {
	head, numeric, body := rows(recs, loc)
	var b bytes.Buffer
	b.WriteString("|")
	for _, h := range head {
		b.WriteString(" " + h + " |")
	}
	b.WriteString("\n|")
	for i := range head {
		if numeric[i] {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for n, row := range body {
		b.WriteString("|")
		for _, c := range row {
			c = mdCell(c)
			if n == len(body)-1 && c != "" {
				c = "**" + c + "**"
			}
			b.WriteString(" " + c + " |")
		}
		b.WriteString("\n")
	}
	if ps := recs[len(recs)-1].Problems; len(ps) > 0 {
		b.WriteString("\nProblems:\n\n")
		for _, p := range ps {
			b.WriteString("- " + mdCell(p) + "\n")
		}
	}
	out.Write(b.Bytes())
}

// writeCSV writes one flat header: the group's keys, then every field,
// objects flattened with dots (tokens.input, tools.bash.calls,
// outcomes.ok) over the outcomes and tools any record has.
func writeCSV(out *jsonl.Writer, recs []summary.Record) error {
	outcomeSet, toolSet := map[string]bool{}, map[string]bool{}
	for _, r := range recs {
		for _, o := range r.Outcomes {
			outcomeSet[o.Name] = true
		}
		for _, t := range r.Tools {
			toolSet[t.Name] = true
		}
	}
	outcomes, tools := sortedKeys(outcomeSet), sortedKeys(toolSet)
	var names []string
	if len(recs) > 0 {
		names = recs[0].Names
	}
	var head []string
	for _, n := range names {
		head = append(head, "group."+n)
	}
	head = append(head, "events", "runs", "first_ts", "last_ts")
	for _, o := range outcomes {
		head = append(head, "outcomes."+o)
	}
	head = append(head, "model_calls", "model_errors")
	for _, t := range summary.TokenNames {
		head = append(head, "tokens."+t)
	}
	head = append(head, "cost_usd", "tool_calls", "tool_failures")
	for _, t := range tools {
		head = append(head, "tools."+t+".calls", "tools."+t+".failed")
	}
	head = append(head, "errors", "guardrails", "kills", "wall_seconds.sum", "wall_seconds.p50", "wall_seconds.p95", "wall_seconds.max",
		"latency_ms.p50", "latency_ms.p95", "latency_ms.max", "problems")
	w := csv.NewWriter(out)
	w.Write(head)
	for i := range recs {
		r := &recs[i]
		var row []string
		for k := range names {
			if r.Total {
				row = append(row, "")
				continue
			}
			v := r.Vals[k]
			if strings.HasPrefix(v, `"`) {
				v = groupText(v)
			}
			row = append(row, v)
		}
		ts := func(us int64) string {
			if !r.HasTS {
				return ""
			}
			return fixed(us, 6)
		}
		row = append(row, itoa(r.Events), itoa(r.Runs), ts(r.FirstTS), ts(r.LastTS))
		oc := map[string]int64{}
		for _, o := range r.Outcomes {
			oc[o.Name] = o.N
		}
		for _, o := range outcomes {
			row = append(row, itoa(oc[o]))
		}
		row = append(row, itoa(r.ModelCalls), itoa(r.ModelErrors))
		for _, n := range r.Tokens {
			row = append(row, itoa(n))
		}
		row = append(row, fixed(r.CostNano, 9), itoa(r.ToolCalls), itoa(r.ToolFails))
		tc := map[string]summary.ToolStat{}
		for _, t := range r.Tools {
			tc[t.Name] = t
		}
		for _, t := range tools {
			row = append(row, itoa(tc[t].Calls), itoa(tc[t].Failed))
		}
		opt := func(f float64, has bool) string {
			if !has {
				return ""
			}
			return strconv.FormatFloat(f, 'f', -1, 64)
		}
		row = append(row, itoa(r.Errors), itoa(r.Guardrails), itoa(r.Kills), fixed(r.WallSumUS, 6),
			opt(r.Wall.P50, r.Wall.Has), opt(r.Wall.P95, r.Wall.Has), opt(r.Wall.Max, r.Wall.Has),
			opt(r.Latency.P50, r.Latency.Has), opt(r.Latency.P95, r.Latency.Has), opt(r.Latency.Max, r.Latency.Has),
			strings.Join(r.Problems, "; "))
		w.Write(row)
	}
	w.Flush()
	return w.Error()
}

// fixed formats v/10^scale like the JSON output does.
func fixed(v int64, scale int) string {
	s := strconv.FormatInt(v, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for len(s) <= scale {
		s = "0" + s
	}
	s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if neg {
		s = "-" + s
	}
	return s
}

func sortedKeys(m map[string]bool) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
