package grep

import (
	"io"
	"strings"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/evtools/evtools/internal/core/term"
	"github.com/evtools/evtools/internal/core/textfmt"
	"github.com/evtools/evtools/pkg/event"
	"github.com/evtools/evtools/pkg/jsonl"
	"github.com/evtools/evtools/pkg/jsonscan"
)

// ViewOptions say how to show hits.
type ViewOptions struct {
	Width int            // columns; <= 0 is 80
	Color bool           // the match in bold red, as grep shows it; headers bold, context dim
	Loc   *time.Location // the zone of the times shown; nil is time.Local
}

// View is the hits of a search for people: an io.Writer that takes the
// selected events as JSON Lines and writes, per session, a header (the
// agent, the project, and the command that reopens the session in its
// agent), then a line per text that matches: the event's date and time,
// which text it is, the line of the text with the match, cut to the
// width around it, and the next line of the text (or the one before, for
// the last) as context. Data never reaches the terminal raw: control
// characters are shown escaped.
type View struct {
	w   io.Writer
	m   *Matcher
	o   ViewOptions
	err error

	lines  jsonl.LineJoiner // the start of a line not yet ended by '\n'
	out    []byte
	last   string // the session of the last header
	headed bool
	sbuf   []byte
}

// NewView returns a View of m's matches writing to w. m is the View's
// own: give it a Clone.
func NewView(w io.Writer, m *Matcher, o ViewOptions) *View {
	if o.Width <= 0 {
		o.Width = term.DefaultWidth
	}
	if o.Loc == nil {
		o.Loc = time.Local
	}
	return &View{w: w, m: m, o: o}
}

// Write takes JSON Lines; each whole line is shown when it is written.
func (v *View) Write(p []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	v.out = v.out[:0]
	v.lines.Lines(p, func(line []byte) bool {
		v.line(line)
		return true
	})
	if len(v.out) > 0 {
		if _, err := v.w.Write(v.out); err != nil {
			v.err = err
			return 0, err
		}
	}
	return len(p), nil
}

// Close shows a last line not ended by a newline.
func (v *View) Close() error {
	if rest := v.lines.Rest(); v.err == nil && len(rest) > 0 {
		v.out = v.out[:0]
		v.line(rest)
		if _, err := v.w.Write(v.out); err != nil {
			v.err = err
		}
	}
	return v.err
}

// str is a top-level string member of line, decoded; "" when absent.
func (v *View) str(line []byte, key string) string {
	raw, ok := jsonscan.Lookup(line, key)
	if !ok {
		return ""
	}
	s, ok := event.String(raw, &v.sbuf)
	if !ok {
		return ""
	}
	return string(s)
}

func (v *View) line(line []byte) {
	ev := &v.m.ev
	if ev.Read(line) != nil {
		return
	}
	session, project, source := v.str(line, "session"), v.str(line, "project"), v.str(line, "source")
	if key := source + "\x00" + session + "\x00" + project; !v.headed || key != v.last {
		v.header(source, project, session)
		v.last, v.headed = key, true
	}
	when := "                "
	if us, known, _ := ev.Micros(); known {
		when = time.UnixMicro(us).In(v.o.Loc).Format("2006-01-02 15:04")
	}
	agent := ""
	if a, ok := event.String(ev.AgentID, &v.sbuf); ok {
		agent = string(a)
	}
	eachText(ev, &v.m.buf, false, func(src Source, text []byte) bool {
		loc := v.m.Find(text)
		if loc == nil {
			return true
		}
		v.hit(when, label(src, agent), string(text), loc[0], loc[1])
		return true
	})
}

// labelWidth is the width of the column of the text's names: 8 to 12,
// as the width allows.
func (v *View) labelWidth() int { return min(12, max(8, v.o.Width/10)) }

// label names the text: its kind, the tool's name, the sub-agent's role.
func label(src Source, agent string) string {
	l := src.What
	switch {
	case src.What == "args" && src.Tool != "":
		l = src.Tool
	case src.What == "output" && src.Tool != "":
		l = src.Tool + " out"
	}
	if role, _, ok := strings.Cut(agent, ":"); ok && role != "" {
		l = role + " " + l
	}
	return l
}

func (v *View) sgr(code string) {
	if v.o.Color {
		v.out = append(v.out, term.CSI+code+"m"...)
	}
}

func (v *View) reset() {
	if v.o.Color {
		v.out = append(v.out, term.Reset...)
	}
}

// header starts a session's hits: a rule naming the agent and the
// project, and the command that reopens the session.
func (v *View) header(source, project, session string) {
	if v.headed {
		v.out = append(v.out, '\n')
	}
	title := "── " + term.Escape(orDash(source))
	if project != "" {
		title += " · " + term.Escape(project)
	}
	title = fit(title, v.o.Width-3) + " "
	v.sgr("1")
	v.out = append(v.out, title...)
	v.out = append(v.out, strings.Repeat("─", max(0, v.o.Width-runewidth.StringWidth(title)))...)
	v.reset()
	v.out = append(v.out, '\n')
	cmds := Resume(source, project, session)
	if cmds == nil {
		if session != "" {
			v.out = append(v.out, "   session "+term.Escape(session)+"\n"...)
		}
		return
	}
	// One line when it fits, else a line per command; a command is never
	// cut: it is there to be copied.
	if one := "   $ " + strings.Join(cmds, " && "); runewidth.StringWidth(one) <= v.o.Width {
		v.out = append(v.out, one+"\n"...)
		return
	}
	for _, c := range cmds {
		v.out = append(v.out, "   $ "+c+"\n"...)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// hit shows one text's match: the line of text it is in, around it.
func (v *View) hit(when, lab, text string, start, end int) {
	ls, le := textfmt.LineAround(text, start)
	end = min(end, le) // a match across lines: its first line
	labelWidth := v.labelWidth()
	indent := len(when) + 1 + labelWidth + 1
	avail := max(8, v.o.Width-indent)

	v.sgr("2")
	v.out = append(v.out, when...)
	v.reset()
	v.out = append(v.out, ' ')
	lab = fit(term.Escape(lab), labelWidth)
	v.out = append(v.out, lab...)
	v.out = append(v.out, strings.Repeat(" ", labelWidth+1-runewidth.StringWidth(lab))...)

	pre, mat, post := term.Escape(text[ls:start]), term.Escape(text[start:end]), term.Escape(text[end:le])
	mat = fit(mat, avail)
	room := avail - runewidth.StringWidth(mat)
	if runewidth.StringWidth(pre)+runewidth.StringWidth(post) > room {
		// What comes before, when it leaves some room after the match;
		// else its end (a third of the room), then what follows.
		if w := runewidth.StringWidth(pre); w > room-min(12, room/2) {
			pre = "…" + tail(pre, room/3-1)
		}
		post = fit(post, room-runewidth.StringWidth(pre))
	}
	v.out = append(v.out, pre...)
	v.sgr("1;31")
	v.out = append(v.out, mat...)
	v.reset()
	v.out = append(v.out, post...)
	v.out = append(v.out, '\n')

	// context: the next line, or the one before
	ctx := ""
	if le < len(text) {
		ctx, _, _ = strings.Cut(text[le+1:], "\n")
	} else if ls > 0 {
		before := text[:ls-1]
		ctx = before[strings.LastIndexByte(before, '\n')+1:]
	}
	if strings.TrimSpace(ctx) == "" {
		return
	}
	v.out = append(v.out, strings.Repeat(" ", indent)...)
	v.sgr("2")
	v.out = append(v.out, fit(term.Escape(ctx), avail)...)
	v.reset()
	v.out = append(v.out, '\n')
}

// fit cuts s to w columns, with an ellipsis when it cuts.
func fit(s string, w int) string {
	if runewidth.StringWidth(s) <= w {
		return s
	}
	if w <= 0 {
		return ""
	}
	return runewidth.Truncate(s, w, "…")
}

// tail is the end of s that fits in w columns.
func tail(s string, w int) string {
	if w <= 0 {
		return ""
	}
	rs := []rune(s)
	n := 0
	i := len(rs)
	for i > 0 {
		cw := runewidth.RuneWidth(rs[i-1])
		if n+cw > w {
			break
		}
		n += cw
		i--
	}
	return string(rs[i:])
}
