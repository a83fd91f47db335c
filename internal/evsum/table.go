package evsum

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evtools/evtools/internal/summary"
	"github.com/evtools/evtools/internal/term"
)

// tableSpec says how the table is drawn.
type tableSpec struct {
	cols  []col
	fit   bool // fitted to width (a terminal, or --width)
	width int  // the width to fit in
	color bool
	// height, for a live frame, is the most lines it may take: the oldest
	// rows give way to a "… N more" line. 0: no limit.
	height int
	// frame: a live frame, without the list of problems.
	frame bool
}

type stringWriter interface {
	WriteString(string) (int, error)
}

// layout is how a fitted table shows its columns: which, at which level,
// and cut to how many cells (0: not cut).
type layout struct {
	show  []bool
	level []int
	limit []int
	width []int // the width each column takes as shown
}

// The fitting steps, in order: each drops a column or condenses it while
// the table is wider than the terminal. The widest and least important go
// first; the group keys, outcomes, cost and problems stay longest.
const (
	stepDrop = iota
	stepCondense
	stepCapKeys       // cut very long group keys to keyCap
	stepDropRunsByRun // runs, when grouped by run alone: 1 on every row
	stepCut           // cut group keys and outcomes down to their minimum
)

const (
	keyCap      = 32
	keyMin      = 12
	outcomesMin = 10
)

var fitSteps = []struct {
	kind int
	name string
}{
	{stepDropRunsByRun, "runs"},
	{stepCapKeys, ""},
	{stepDrop, "latency_p95"},
	{stepDrop, "latency_max"},
	{stepDrop, "wall_p95"},
	{stepDrop, "wall_max"},
	{stepCondense, "first"},
	{stepCondense, "last"},
	{stepDrop, "wall_sum"},
	{stepDrop, "latency_p50"},
	{stepDrop, "model_errors"},
	{stepDrop, "model_calls"},
	{stepCondense, "tokens"},
	{stepCondense, "tokens_in"},
	{stepCondense, "tokens_out"},
	{stepCondense, "cache_read"},
	{stepCondense, "cache_write"},
	{stepDrop, "cache_write"},
	{stepDrop, "cache_read"},
	{stepDrop, "events"},
	{stepDrop, "tool_calls"},
	{stepDrop, "guardrails"},
	{stepDrop, "last"},
	{stepDrop, "runs"},
	{stepDrop, "first"},
	{stepDrop, "failed"},
	{stepDrop, "kills"},
	{stepDrop, "tokens_in"},
	{stepDrop, "tokens_out"},
	{stepDrop, "wall_p50"},
	{stepDrop, "tokens"},
	{stepDrop, "errors"},
	{stepCut, ""},
	{stepDrop, "problems"},
	{stepDrop, "cost"},
}

// fit lays cols out in width cells. w1 and w2 are the columns' widths at
// levels 1 and 2, headers included.
func fit(cols []col, w1, w2 []int, width int, byRunAlone bool) layout {
	n := len(cols)
	l := layout{show: make([]bool, n), level: make([]int, n), limit: make([]int, n), width: make([]int, n)}
	for i := range cols {
		l.show[i], l.level[i] = true, 1
	}
	colWidth := func(i int) int {
		w := w1[i]
		if l.level[i] == 2 {
			w = w2[i]
		}
		if l.limit[i] > 0 {
			w = min(w, l.limit[i])
		}
		return w
	}
	total := func() int {
		t, shown := 0, 0
		for i := range cols {
			if l.show[i] {
				t += colWidth(i)
				shown++
			}
		}
		return t + 2*max(shown-1, 0)
	}
	named := func(name string, fn func(i int)) {
		for i, c := range cols {
			if c.key < 0 && c.name == name {
				fn(i)
			}
		}
	}
	for _, s := range fitSteps {
		if total() <= width {
			break
		}
		switch s.kind {
		case stepDrop:
			named(s.name, func(i int) { l.show[i] = false })
		case stepCondense:
			named(s.name, func(i int) { l.level[i] = 2 })
		case stepDropRunsByRun:
			if byRunAlone {
				named(s.name, func(i int) { l.show[i] = false })
			}
		case stepCapKeys:
			for i, c := range cols {
				if c.key >= 0 && colWidth(i) > keyCap {
					l.limit[i] = keyCap
				}
			}
		case stepCut:
			// One cell at a time off the widest column that may be
			// cut, down to its minimum.
			for total() > width {
				best := -1
				for i, c := range cols {
					least := outcomesMin
					if c.key >= 0 {
						least = keyMin
					}
					if l.show[i] && c.cut && colWidth(i) > least && (best < 0 || colWidth(i) > colWidth(best)) {
						best = i
					}
				}
				if best < 0 {
					break
				}
				l.limit[best] = colWidth(best) - 1
			}
		}
	}
	// A terminal narrower than the least of this: the columns on the right
	// go, and the first is cut to the width.
	for i := n - 1; i > 0 && total() > width; i-- {
		if l.show[i] {
			l.show[i] = false
		}
	}
	for i := range cols {
		if l.show[i] && total() > width {
			l.limit[i] = max(width, 1)
		}
	}
	for i := range cols {
		l.width[i] = colWidth(i)
	}
	return l
}

// writeTable writes the table of st.
// It goes over the records twice (widths, then lines) rather than hold
// them all; a live frame goes over them once and keeps the rows it shows.
func writeTable(out stringWriter, st *summary.State, cx *cellCtx, spec tableSpec) {
	each := func(fn func(*summary.Record) error) error { return eachRow(st, fn) }
	more := 0 // rows left out of a frame
	if spec.frame {
		each, more = frameRecords(st, spec.height)
	}
	cols := spec.cols
	n := len(cols)
	// widths at each level; the unfitted table counts runes, as it always
	// did, the fitted one terminal cells
	w0, w1, w2 := make([]int, n), make([]int, n), make([]int, n)
	for i := range cols {
		if spec.fit {
			h := cellWidth(cols[i].header(true))
			w1[i], w2[i] = h, h
		} else {
			w0[i] = utf8.RuneCountInString(cols[i].head)
		}
	}
	each(func(r *summary.Record) error {
		for i := range cols {
			if !spec.fit {
				w0[i] = max(w0[i], utf8.RuneCountInString(cols[i].cell(r, cx, 0)))
				continue
			}
			c1 := cols[i].cell(r, cx, 1)
			w1[i] = max(w1[i], cellWidth(c1))
			if cols[i].condenses {
				w2[i] = max(w2[i], cellWidth(cols[i].cell(r, cx, 2)))
			} else {
				w2[i] = max(w2[i], cellWidth(c1))
			}
		}
		return nil
	})
	var l layout
	if spec.fit {
		l = fit(cols, w1, w2, spec.width, len(cx.names) == 1 && cx.names[0] == "run_id")
	} else {
		l = layout{show: make([]bool, n), level: make([]int, n), limit: make([]int, n), width: w0}
		for i := range cols {
			l.show[i] = true
		}
	}
	var shown []int
	for i := range cols {
		if l.show[i] {
			shown = append(shown, i)
		}
	}
	width := func(s string) int {
		if spec.fit {
			return cellWidth(s)
		}
		return utf8.RuneCountInString(s)
	}
	line := func(cell func(i int) string, style func(i int, c string) string) {
		var b strings.Builder
		for k, i := range shown {
			c := cell(i)
			if l.limit[i] > 0 {
				c = cutText(c, l.limit[i])
			}
			if k > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", max(l.width[i]-width(c), 0))
			if cols[i].numeric {
				b.WriteString(pad)
			}
			b.WriteString(style(i, c))
			// the last column is not padded after
			if !cols[i].numeric && k < len(shown)-1 {
				b.WriteString(pad)
			}
		}
		out.WriteString(b.String() + "\n")
	}
	plain := func(_ int, c string) string { return c }
	head := func(i int) string { return cols[i].header(spec.fit) }
	if spec.color {
		line(head, func(_ int, c string) string { return bold + c + reset })
	} else {
		line(head, plain)
	}
	// A live frame no taller than the terminal: header, "… N more",
	// the newest rows, the total.
	if more > 0 {
		m := "… " + strconv.Itoa(more) + " more"
		if spec.fit {
			m = cutText(m, spec.width)
		}
		out.WriteString(m + "\n")
	}
	var problems []string
	each(func(r *summary.Record) error {
		style := plain
		if spec.color {
			style = func(i int, c string) string {
				switch {
				case cols[i].alert && c != "0":
					return red + c + reset
				case r.Total:
					return bold + c + reset
				}
				return c
			}
		}
		line(func(i int) string { return cols[i].cell(r, cx, l.level[i]) }, style)
		if r.Total {
			problems = r.Problems
		}
		if o, ok := out.(interface{ Err() error }); ok {
			return o.Err()
		}
		return nil
	})
	if len(problems) > 0 && !spec.frame {
		if spec.fit {
			out.WriteString("\n" + cutText("problems:", spec.width) + "\n")
		} else {
			out.WriteString("\nproblems:\n")
		}
		for _, p := range problems {
			p = term.Escape(p)
			if !spec.fit {
				out.WriteString("  " + p + "\n")
				continue
			}
			for _, w := range wrap(p, spec.width, "  ", "    ") {
				// cut only where the width leaves no room for the indent
				out.WriteString(cutText(w, spec.width) + "\n")
			}
		}
	}
}

// frameRecords builds the rows of a live frame at most height lines
// tall, with the line the cursor is left on (0: no limit): the newest rows
// that fit under the header and the total (and its breakdown), the oldest
// giving way to a "… N more" line. It returns them, in order, and N. Only
// these rows are kept, and measured: the frame is fitted to what it shows.
func frameRecords(st *summary.State, height int) (func(func(*summary.Record) error) error, int) {
	// rows that fit without "… N more"; with it, one fewer
	room := max(height-3, 0)
	var ring []summary.Record
	var total summary.Record
	rows := 0
	push := func(r *summary.Record) {
		switch {
		case height <= 0 || len(ring) < room:
			ring = append(ring, *r)
		case room > 0:
			ring[rows%room] = *r
		}
		rows++
	}
	st.EachRecord(func(r *summary.Record) error {
		if r.Total {
			total = *r
			return nil
		}
		push(r)
		for i := range r.Breakdown {
			push(&r.Breakdown[i])
		}
		return nil
	})
	if height > 0 && rows > room && room > 0 {
		// in order: the ring starts at the oldest it holds
		ring = append(ring[rows%room:], ring[:rows%room]...)
	}
	// the total's breakdown stays in sight under it
	room = max(room-len(total.Breakdown), 0)
	keep := rows
	if height > 0 && rows > room {
		keep = max(room-1, 0)
		ring = ring[len(ring)-keep:]
	}
	recs := append(append(ring, total), total.Breakdown...)
	return func(fn func(*summary.Record) error) error {
		for i := range recs {
			if err := fn(&recs[i]); err != nil {
				return err
			}
		}
		return nil
	}, rows - keep
}

// wrap breaks s into lines of at most width cells at spaces, the first
// line starting with first and the others with indent; a word longer than
// a line is broken.
func wrap(s string, width int, first, indent string) []string {
	var lines []string
	cur, fresh := first, true // fresh: nothing but the prefix on cur yet
	for _, w := range strings.Split(s, " ") {
		// A word goes to the next line when it fits there; one longer
		// than a line is broken where it falls.
		if !fresh && cellWidth(cur)+1+cellWidth(w) > width && cellWidth(indent)+cellWidth(w) <= width {
			lines = append(lines, cur)
			cur, fresh = indent, true
		}
		if !fresh {
			cur += " "
		}
		cur += w
		fresh = false
		for cellWidth(cur) > width {
			head := strings.TrimSuffix(cutText(cur, width+1), "…")
			if len(head) <= len(indent) {
				break // no room for even a letter after the indent
			}
			lines = append(lines, head)
			cur = indent + cur[len(head):]
		}
	}
	return append(lines, cur)
}
