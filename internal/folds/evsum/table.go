package evsum

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evtools/evtools/internal/core/term"
	"github.com/evtools/evtools/internal/folds/record"
	"github.com/evtools/evtools/internal/folds/summary"
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
	// chosen: the columns are --columns', in the order it gives.
	chosen bool
	// keep, for a live table, holds the columns the first frame chose,
	// which the later frames and the final table keep (see fit).
	keep *keptLayout
}

// keptLayout is the layout a live table keeps from frame to frame: at the
// width it was fitted to, the columns it shows and their levels.
type keptLayout struct {
	width int
	names []string
	show  []bool
	level []int
}

// apply sets show and level of cols as k has them, when k was fitted at
// width: a column it has by name keeps its state, a column it has not (the
// unpriced calls, shown from the first one counted on) is shown. It
// reports whether it did.
func (k *keptLayout) apply(cols []col, width int, show []bool, level []int) bool {
	if k == nil || k.width != width || len(k.names) == 0 {
		return false
	}
	for i, c := range cols {
		if j := slices.Index(k.names, c.name); j >= 0 {
			show[i], level[i] = k.show[j], k.level[j]
		}
	}
	return true
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

	w1, w2 []int // the columns' widths at levels 1 and 2, headers included
}

// The kinds of fitting steps: each drops a column or condenses it, or
// cuts long cells, while the table is wider than the terminal.
const (
	stepDrop = iota
	stepCondense
	stepCapKeys // cut very long group keys to keyCap
	stepCut     // cut group keys and outcomes down to their minimum
)

const (
	keyCap      = 32
	keyMin      = 12
	outcomesMin = 10
)

// fitStep is one step of fitting: of column col, or of all (cap, cut).
type fitStep struct {
	kind, col, rank int
}

// fitSteps are the steps of fitting cols, in order: the columns blank on
// every row (see measure) in the order of their ranks, the column that is 1
// on every row when grouped by run alone, the very long keys, then the
// columns' steps (record.Column's Condense and Drop), the cut among them
// at its rank. A blank column says nothing a row could tell from another,
// and took the room of the tokens at 80 columns.
func fitSteps(cols []col, byRunAlone bool, blank []bool) []fitStep {
	var blanks, first, ranked []fitStep
	for i, c := range cols {
		if c.field == nil {
			continue
		}
		k := c.field.Column
		if r := c.dropRank(); r > 0 && i < len(blank) && blank[i] {
			blanks = append(blanks, fitStep{stepDrop, i, r})
		}
		if byRunAlone && k.OnePerRun {
			first = append(first, fitStep{kind: stepDrop, col: i})
		}
		if r := c.condenseRank(); r > 0 && c.condenses() {
			ranked = append(ranked, fitStep{stepCondense, i, r})
		}
		if r := c.dropRank(); r > 0 {
			ranked = append(ranked, fitStep{stepDrop, i, r})
		}
	}
	ranked = append(ranked, fitStep{kind: stepCut, rank: record.FitCut})
	byRank := func(a, b fitStep) int { return cmp.Compare(a.rank, b.rank) }
	slices.SortStableFunc(blanks, byRank)
	slices.SortStableFunc(ranked, byRank)
	return slices.Concat(blanks, first, []fitStep{{kind: stepCapKeys}}, ranked)
}

// colWidth is the width column i takes at its level and limit.
func (l *layout) colWidth(i int) int {
	w := l.w1[i]
	if l.level[i] == 2 {
		w = l.w2[i]
	}
	if l.limit[i] > 0 {
		w = min(w, l.limit[i])
	}
	return w
}

// total is the width of the table as laid out, two spaces between columns.
func (l *layout) total() int {
	t, shown := 0, 0
	for i := range l.show {
		if l.show[i] {
			t += l.colWidth(i)
			shown++
		}
	}
	return t + 2*max(shown-1, 0)
}

// cut takes one cell at a time off the widest column that may be cut,
// down to its minimum, until the table fits in width.
func (l *layout) cut(cols []col, width int) {
	for l.total() > width {
		best := -1
		for i, c := range cols {
			least := outcomesMin
			if c.key >= 0 {
				least = keyMin
			}
			if l.show[i] && c.cut() && l.colWidth(i) > least && (best < 0 || l.colWidth(i) > l.colWidth(best)) {
				best = i
			}
		}
		if best < 0 {
			return
		}
		l.limit[best] = l.colWidth(best) - 1
	}
}

// fit lays cols out in width cells. w1 and w2 are the columns' widths at
// levels 1 and 2, headers included; blank says which columns are empty or
// 0 on every row, which go first.
//
// keep, when not nil, is a live table's: a layout at the same width
// starts from the columns it showed (see apply) and cuts the group
// keys and the outcomes first, dropping a column only when that is not
// enough, and never shows one it dropped. Fitted afresh, a frame whose
// outcomes had grown by a word dropped a column that the next frame took
// back, so the columns came and went as the runs ended. fit keeps its
// layout in keep.
//
// A live table drops no column for being blank: its zeros are those of
// runs just begun, and a column it dropped would never come back.
func fit(cols []col, w1, w2 []int, blank []bool, width int, byRunAlone bool, keep *keptLayout) layout {
	n := len(cols)
	l := layout{show: make([]bool, n), level: make([]int, n), limit: make([]int, n), width: make([]int, n), w1: w1, w2: w2}
	for i := range cols {
		l.show[i], l.level[i] = true, 1
	}
	if keep != nil {
		blank = nil
	}
	steps := fitSteps(cols, byRunAlone, blank)
	if keep.apply(cols, width, l.show, l.level) {
		steps = append([]fitStep{{kind: stepCapKeys}, {kind: stepCut}}, steps...)
	}
	defer func() {
		if keep != nil {
			*keep = keptLayout{width: width, show: slices.Clone(l.show), level: slices.Clone(l.level)}
			for _, c := range cols {
				keep.names = append(keep.names, c.name)
			}
		}
	}()
	for _, s := range steps {
		if l.total() <= width {
			break
		}
		switch s.kind {
		case stepDrop:
			l.show[s.col] = false
		case stepCondense:
			l.level[s.col] = 2
		case stepCapKeys:
			for i, c := range cols {
				if c.key >= 0 && l.colWidth(i) > keyCap {
					l.limit[i] = keyCap
				}
			}
		case stepCut:
			l.cut(cols, width)
		}
	}
	// A terminal narrower than the least of this: the columns on the right
	// go, and the first is cut to the width.
	for i := n - 1; i > 0 && l.total() > width; i-- {
		l.show[i] = false
	}
	for i := range cols {
		if l.show[i] && l.total() > width {
			l.limit[i] = max(width, 1)
		}
	}
	for i := range cols {
		l.width[i] = l.colWidth(i)
	}
	return l
}

// measure is the widths of cols over the rows each gives: at level 0
// (the unfitted table counts runes, as it always did), or, fitted, at
// levels 1 and 2 in terminal cells; headers included. Fitted, blank says
// which field columns are empty or 0 on every row.
func measure(cols []col, each func(func(*record.Record) error) error, cx *cellCtx, fitted bool) (w0, w1, w2 []int, blank []bool) {
	n := len(cols)
	w0, w1, w2, blank = make([]int, n), make([]int, n), make([]int, n), make([]bool, n)
	for i := range cols {
		if fitted {
			h := cellWidth(cols[i].header(true))
			w1[i], w2[i] = h, h
			blank[i] = cols[i].field != nil && cols[i].field.Value != nil
		} else {
			w0[i] = utf8.RuneCountInString(cols[i].header(false))
		}
	}
	each(func(r *record.Record) error {
		for i := range cols {
			if !fitted {
				w0[i] = max(w0[i], utf8.RuneCountInString(cols[i].cell(r, cx, 0)))
				continue
			}
			if blank[i] {
				v := cols[i].field.Value(r)
				blank[i] = !v.Has || v.I == 0 && v.F == 0
			}
			c1 := cols[i].cell(r, cx, 1)
			w1[i] = max(w1[i], cellWidth(c1))
			if cols[i].condenses() {
				w2[i] = max(w2[i], cellWidth(cols[i].cell(r, cx, 2)))
			} else {
				w2[i] = max(w2[i], cellWidth(c1))
			}
		}
		return nil
	})
	return w0, w1, w2, blank
}

// tableLines writes the lines of a table laid out: its shown columns,
// padded to their widths, cut to their limits.
type tableLines struct {
	out    stringWriter
	cols   []col
	l      layout
	shown  []int
	fitted bool
}

// line writes one line of cells (cell(i) is column i's), each styled.
func (t *tableLines) line(cell func(i int) string, style func(i int, c string) string) {
	var b strings.Builder
	for k, i := range t.shown {
		c := cell(i)
		switch {
		case t.l.limit[i] > 0 && t.cols[i].midCut():
			c = cutMiddle(c, t.l.limit[i])
		case t.l.limit[i] > 0:
			c = cutText(c, t.l.limit[i])
		}
		if k > 0 {
			b.WriteString("  ")
		}
		w := utf8.RuneCountInString(c)
		if t.fitted {
			w = cellWidth(c)
		}
		pad := strings.Repeat(" ", max(t.l.width[i]-w, 0))
		if t.cols[i].numeric() {
			b.WriteString(pad)
		}
		b.WriteString(style(i, c))
		// the last column is not padded after
		if !t.cols[i].numeric() && k < len(t.shown)-1 {
			b.WriteString(pad)
		}
	}
	t.out.WriteString(b.String() + "\n")
}

func plain(_ int, c string) string { return c }

// writeTable writes the table of st.
// It goes over the records twice (widths, then lines) rather than hold
// them all; a live frame goes over them once and keeps the rows it shows.
func writeTable(out stringWriter, st *summary.State, cx *cellCtx, spec tableSpec) {
	each := func(fn func(*record.Record) error) error { return eachRow(st, fn) }
	more := 0 // rows left out of a frame
	if spec.frame {
		each, more = frameRecords(st, spec.height)
	}
	cols := spec.cols
	if spec.fit {
		cols = withSteps(cols, each)
	}
	w0, w1, w2, blank := measure(cols, each, cx, spec.fit)
	var l layout
	if spec.fit {
		l = fit(cols, w1, w2, blank, spec.width, len(cx.names) == 1 && cx.names[0] == "run_id", spec.keep)
	} else {
		n := len(cols)
		l = layout{show: make([]bool, n), level: make([]int, n), limit: make([]int, n), width: w0}
		for i := range cols {
			l.show[i] = true
		}
	}
	t := &tableLines{out: out, cols: cols, l: l, fitted: spec.fit}
	for i := range cols {
		if l.show[i] {
			t.shown = append(t.shown, i)
		}
	}
	head := func(i int) string { return cols[i].header(spec.fit) }
	if spec.color {
		t.line(head, func(_ int, c string) string { return bold + c + reset })
	} else {
		t.line(head, plain)
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
	var problems []record.Problem
	each(func(r *record.Record) error {
		t.line(func(i int) string { return cols[i].cell(r, cx, l.level[i]) }, rowStyle(cols, r, spec.color))
		if r.Total {
			problems = r.Problems
		}
		if o, ok := out.(interface{ Err() error }); ok {
			return o.Err()
		}
		return nil
	})
	if len(problems) > 0 && !spec.frame {
		writeProblems(out, problems, spec)
	}
}

// rowStyle is how a row's cells are coloured: a column's alert in red
// when not 0, the total in bold.
func rowStyle(cols []col, r *record.Record, color bool) func(i int, c string) string {
	if !color {
		return plain
	}
	return func(i int, c string) string {
		switch {
		case cols[i].alert() && c != "0":
			return red + c + reset
		case r.Total:
			return bold + c + reset
		}
		return c
	}
}

// writeProblems writes the list of problems under the table: fitted,
// each wrapped to the width.
func writeProblems(out stringWriter, problems []record.Problem, spec tableSpec) {
	if spec.fit {
		out.WriteString("\n" + cutText("problems:", spec.width) + "\n")
	} else {
		out.WriteString("\nproblems:\n")
	}
	for _, pr := range problems {
		p := term.Escape(pr.String())
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

// frameRecords builds the rows of a live frame at most height lines
// tall, with the line the cursor is left on (0: no limit): the newest rows
// that fit under the header and the total (and its breakdown), the oldest
// giving way to a "… N more" line. It returns them, in order, and N. Only
// these rows are kept, and measured: the frame is fitted to what it shows.
func frameRecords(st *summary.State, height int) (func(func(*record.Record) error) error, int) {
	// rows that fit without "… N more"; with it, one fewer
	room := max(height-3, 0)
	var ring []record.Record
	var total record.Record
	rows := 0
	push := func(r *record.Record) {
		switch {
		case height <= 0 || len(ring) < room:
			ring = append(ring, *r)
		case room > 0:
			ring[rows%room] = *r
		}
		rows++
	}
	st.EachRecord(func(r *record.Record) error {
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
	return func(fn func(*record.Record) error) error {
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
