package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/evtools/evtools/internal/core/jsontext"
	"github.com/evtools/evtools/internal/core/textfmt"
	"github.com/evtools/evtools/internal/views/eventtext"
	"github.com/evtools/evtools/pkg/event"
)

// A tool call is shown open when its arguments and output are short;
// longer ones are folded, their summary line saying what they did.
const (
	openLines = 12
	openBytes = 1500
)

// runView is one run's section.
type runView struct {
	N                 int
	ID                string
	Title             string
	Outcome, OutClass string
	When              string
	Meta              []string
	Timeline          *timeline
	Entries           []*entryView
	Hidden            int
	HiddenCmd         string
	MaxEntries        int
	MaxPage           string
}

// entryView is one entry as the template shows it.
type entryView struct {
	Class, Tag string
	Time, Date string
	Name       string
	Code       string
	Status     string
	StatusBad  bool
	Meta       []string
	MD         template.HTML
	Text       string
	TextNote   string
	Think      template.HTML
	ThinkHead  string
	ThinkNote  string
	Args       *block
	Output     *block
	Open       bool
	Fold       bool
	Children   []*entryView
	Payload    string
}

// block is a text shown in a pre: a tool's arguments or output.
type block struct {
	Label, Text, Note string
}

// finish renders an ended (or, at the end of input, an open) run into the
// page's sections and lets go of it.
func (t *Writer) finish(r *run) {
	h := r.head
	h.live = nil
	t.life.End(r.life)
	if !r.hasWall && h.first != 0 && h.last > h.first {
		h.wallUS = h.last - h.first
	}
	t.total.add(&h.tot)
	v := &runView{N: h.n, ID: h.id, Title: nonEmpty(title(h.prompt), h.promptless()), Hidden: r.hidden, MaxEntries: t.o.MaxEntries,
		MaxPage: bytesText(t.o.MaxPage)}
	v.Outcome, v.OutClass = outcome(h.outcome)
	if h.first != 0 {
		v.When = time.UnixMicro(h.first).In(t.o.Loc).Format("2006-01-02 15:04:05 MST")
	}
	v.Meta = runMeta(h, r.model)
	if r.hidden > 0 {
		files := "FILE"
		if len(t.o.Files) > 0 {
			var q []string
			for _, f := range t.o.Files {
				q = append(q, shellQuote(f))
			}
			files = strings.Join(q, " ")
		}
		sel := shellQuote("run_id==" + string(jsontext.AppendString(nil, h.id)))
		switch t.o.Tool {
		case "evimport", "zot2gp":
			// Their inputs are not events: the events are theirs.
			v.HiddenCmd = t.o.Tool + " " + files + " | evfilter --format html " + sel + " > run.html"
		default:
			v.HiddenCmd = "evfilter --format html " + sel + " " + files + " > run.html"
		}
	}
	if r.hidden < r.entries {
		v.Timeline = t.timeline(r) // a run shown as its header only has none: its bytes go to the runs shown
	}
	if t.o.Redact != nil {
		t.redact(r.items)
	}
	v.Entries = t.entries(r.items)
	h.entriesShown = r.entries - r.hidden
	if r.entries > 0 && r.hidden == r.entries && len(t.runs) > 1 {
		// The page is full: the run is a line of the run list, which
		// says so, and gets no section of headers only (on a page of
		// thousands of runs, they would be most of it).
		h.omitted, h.cmd = true, v.HiddenCmd
		t.omitted++
		return
	}
	if err := runTemplate.Execute(&t.sections, v); err != nil && t.err == nil {
		t.err = err
	}
}

// redact takes the secrets out of the texts joined from pieces.
func (t *Writer) redact(items []*item) {
	for _, it := range items {
		for _, c := range []*clip{&it.text, &it.args, &it.progress} {
			if len(c.b) > 0 {
				c.b = t.o.Redact.Text(nil, c.b)
			}
		}
		t.redact(it.children)
	}
}

// runMeta is what a run's header line says after its outcome.
func runMeta(h *runHead, model string) []string {
	var m []string
	if h.wallUS > 0 {
		m = append(m, eventtext.Duration(h.wallUS))
	}
	if model != "" {
		m = append(m, model)
	}
	return append(m, totalsText(&h.tot)...)
}

// totalsText says what a run, an agent or the page used: model calls,
// tool calls (and failures), tokens, cost.
func totalsText(t *totals) []string {
	var m []string
	if t.models > 0 {
		m = append(m, textfmt.PluralThousands(int64(t.models), "model call"))
	}
	if t.tools > 0 {
		s := textfmt.PluralThousands(int64(t.tools), "tool call")
		if t.toolFails > 0 {
			s += fmt.Sprintf(" (%s failed)", textfmt.Thousands(int64(t.toolFails)))
		}
		m = append(m, s)
	}
	if t.tokens > 0 {
		m = append(m, textfmt.Thousands(t.tokens)+" tokens")
	}
	if t.hasCost {
		m = append(m, eventtext.Cost(t.costNano))
	}
	return m
}

// outcome is an outcome's word and class: ok is ok; anything else is
// said in capitals, so that it does not rest on colour.
func outcome(o string) (string, string) {
	switch {
	case o == "":
		return "no end in the stream", "open"
	case eventtext.EndedWell(o):
		return o, "ok"
	}
	return strings.ToUpper(o), "bad"
}

// title is the first line of a prompt, cut to a length a heading takes.
func title(prompt string) string {
	s := strings.TrimSpace(prompt)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	return visible(shorten(s, 120))
}

// shorten is s cut to n characters, the last of them "…", when it has
// more.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return cutRunes(s, n-1) + "…"
}

// cutRunes is the first n characters of s.
func cutRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// entries makes the views of a list of entries.
func (t *Writer) entries(items []*item) []*entryView {
	out := make([]*entryView, 0, len(items))
	for _, it := range items {
		if it.kind == kReply && it.text.cut == 0 && len(bytes.TrimSpace(it.text.b)) == 0 {
			continue // pieces of nothing but blank lines: an empty box says nothing
		}
		out = append(out, t.entry(it))
	}
	return out
}

func (t *Writer) entry(it *item) *entryView {
	v := &entryView{}
	if it.at != 0 {
		tm := time.UnixMicro(it.at).In(t.o.Loc)
		v.Time, v.Date = tm.Format("15:04:05.000"), tm.Format(time.RFC3339Nano)
	}
	switch it.kind {
	case kUser:
		v.Class, v.Tag = "user", "user"
		v.MD, v.TextNote = markdown(string(it.text.b)), cutNote(it.text.cut)
	case kReply:
		v.Class, v.Tag = "reply", "reply"
		v.MD, v.TextNote = markdown(string(it.text.b)), cutNote(it.text.cut)
	case kModel:
		t.modelEntry(it, v)
	case kTool:
		t.toolEntry(it, v)
	case kAgent:
		t.agentEntry(it, v)
	case kError:
		v.Class, v.Tag, v.Name = "bad", "ERROR", visible(it.outcome)
		v.Text, v.TextNote = visible(string(it.text.b)), cutNote(it.text.cut)
	case kKill:
		v.Class, v.Tag = "kill", "KILLED"
		v.Text, v.TextNote = visible(string(it.text.b)), cutNote(it.text.cut)
	case kGuardrail:
		v.Class, v.Tag = "warn", "GUARDRAIL"
		v.Name = visible(string(it.text.b))
		if it.name != "" {
			v.Meta = append(v.Meta, "tool "+visible(it.name))
		}
		if it.outcome != "" {
			v.Meta = append(v.Meta, visible(it.outcome))
		}
	case kDecision:
		v.Class, v.Tag, v.Name = "decide", "decide", visible(it.outcome)
		v.Text, v.TextNote = visible(string(it.text.b)), cutNote(it.text.cut)
	case kEnd:
		v.Class, v.Tag = "end", "run"
		v.Status, _ = outcome(it.outcome)
		v.StatusBad = v.Status != it.outcome || it.outcome == ""
	case kOther:
		v.Class, v.Tag, v.Fold = "other", visible(it.name), true
		v.Payload = indent(it.payload)
	}
	return v
}

func (t *Writer) modelEntry(it *item, v *entryView) {
	v.Class, v.Tag = "model", "model"
	if it.step != "" {
		v.Name = "step " + it.step
	}
	if it.usage.OfSession {
		v.Name = "session totals"
	}
	if it.model != "" {
		v.Meta = append(v.Meta, visible(it.model))
	}
	if it.hasUsage {
		u := &it.usage
		if u.NoUsage {
			// the log kept no tokens for it: "in 0, out 0" would say free
			v.Meta = append(v.Meta, "usage not recorded")
		} else {
			v.Meta = append(v.Meta, "in "+textfmt.Thousands(u.Tokens[event.TokInput]), "out "+textfmt.Thousands(u.Tokens[event.TokOutput]))
		}
		if n := u.Tokens[event.TokCacheRead]; n > 0 {
			v.Meta = append(v.Meta, "cache "+textfmt.Thousands(n))
		}
		if u.HasCost {
			v.Meta = append(v.Meta, eventtext.Cost(u.CostNano))
		}
	}
	switch {
	case it.usage.HasLatency:
		v.Meta = append(v.Meta, eventtext.Duration(it.usage.LatencyUS))
	case it.start != 0 && it.end > it.start:
		v.Meta = append(v.Meta, eventtext.Duration(it.end-it.start))
	}
	if it.stop != "" && it.stop != "end" && it.stop != "tool_use" && !it.failed {
		v.Meta = append(v.Meta, "stop "+visible(it.stop))
	}
	if it.failed {
		v.Class += " bad"
		v.Status, v.StatusBad = "FAILED", true
		v.Text, v.TextNote = visible(string(it.text.b)), cutNote(it.text.cut)
	}
	if len(it.thinking.b) > 0 {
		th := string(it.thinking.b)
		v.Think = markdown(th)
		v.ThinkHead = "thinking · " + textfmt.PluralThousands(int64(len(strings.Fields(th))), "word")
		v.ThinkNote = cutNote(it.thinking.cut)
	}
}

func (t *Writer) toolEntry(it *item, v *entryView) {
	v.Class, v.Tag, v.Name, v.Fold = "tool", "tool", visible(nonEmpty(it.name, "?")), true
	if len(it.args.b) > 0 {
		v.Code = visible(shorten(eventtext.BestArg(it.args.b), 100)) // the arguments below have it whole
		v.Args = t.textBlock("arguments", argsText(it.args.b, v.Code), it.args.cut)
		if v.Args.Text == "" {
			v.Args = nil
		}
	}
	out := it.output
	if len(out.b) == 0 && out.cut == 0 {
		out = it.progress // no result: what the tool printed as it ran
	}
	if len(out.b) > 0 || out.cut > 0 {
		v.Output = t.textBlock("output", string(out.b), out.cut)
	}
	switch {
	case it.failed:
		v.Class += " bad"
		v.Status, v.StatusBad = "FAILED", true
	case it.ended:
		v.Status = "ok"
	default:
		v.Status = "no result in the stream"
	}
	if it.start != 0 && it.end > it.start {
		v.Meta = append(v.Meta, eventtext.Duration(it.end-it.start))
	}
	v.Children = t.entries(it.children)
	size, lines := 0, 0
	for _, b := range []*block{v.Args, v.Output} {
		if b != nil {
			size += len(b.Text)
			lines += strings.Count(b.Text, "\n") + 1
		}
	}
	v.Open = len(v.Children) > 0 || size <= openBytes && lines <= openLines
}

func (t *Writer) agentEntry(it *item, v *entryView) {
	v.Class, v.Tag, v.Name, v.Fold, v.Open = "agent", "agent", visible(nonEmpty(it.name, it.agent)), true, true
	if it.model != "" {
		v.Meta = append(v.Meta, visible(it.model))
	}
	if it.ended {
		v.Status, _ = outcome(it.outcome)
		v.StatusBad = v.Status != it.outcome
	} else {
		v.Status = "no end in the stream"
	}
	if it.wallUS > 0 {
		v.Meta = append(v.Meta, eventtext.Duration(it.wallUS))
	}
	v.Meta = append(v.Meta, totalsText(&it.tot)...)
	v.Text, v.TextNote = visible(string(it.text.b)), cutNote(it.text.cut)
	if len(it.output.b) > 0 {
		v.Output = &block{Label: "error", Text: visible(string(it.output.b))}
	}
	v.Children = t.entries(it.children)
}

// textBlock is a text cut to MaxLines lines, with a note of what is not
// shown.
func (t *Writer) textBlock(label, s string, cutBytes int) *block {
	b := &block{Label: label}
	s = strings.TrimRight(s, "\n")
	lines, rest := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			lines++
			if lines == t.o.MaxLines {
				rest = strings.Count(s[i+1:], "\n") + 1
				cutBytes += len(s) - i - 1
				s = s[:i]
				break
			}
		}
	}
	b.Text = visible(s)
	switch {
	case rest > 0:
		b.Note = fmt.Sprintf("%s more (%s) not shown", textfmt.PluralThousands(int64(rest), "line"), bytesText(cutBytes))
	case cutBytes > 0:
		b.Note = cutNote(cutBytes)
	}
	return b
}

func cutNote(n int) string {
	if n == 0 {
		return ""
	}
	return bytesText(n) + " more not shown"
}

func bytesText(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return textfmt.Plural(int64(n), "byte")
}

// argsText is how a call's arguments are shown below its summary line:
// nothing when the one argument there is is the one the line shows, on
// one line when they are short, else indented.
func argsText(args []byte, shown string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) == nil && len(m) == 1 {
		for _, v := range m {
			if visible(eventtext.OneLine(eventtext.Text(v))) == shown && shown != "" {
				return ""
			}
		}
	}
	if c := eventtext.Compact(args); len(c) <= 100 && !strings.Contains(c, "\n") {
		return visible(c)
	}
	return indent(args)
}

// indent is a JSON value indented for reading; anything else as it is.
func indent(raw []byte) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") == nil {
		return visible(b.String())
	}
	return visible(string(raw))
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// pageView is the page around the runs' sections.
type pageView struct {
	Title, Sub, Generator string
	Totals                []string
	Runs                  []runLink
	Sections              template.HTML
	Notes                 []string
	Empty                 bool
}

// runLink is a run's line in the run list.
type runLink struct {
	N                 int
	Omitted           bool
	Prompt, When      string
	Outcome, OutClass string
	Meta              []string
}

func (t *Writer) writePage() error {
	p := &pageView{Generator: strings.TrimSpace(t.o.Tool + " " + t.o.Version)}
	switch len(t.runs) {
	case 0:
		p.Title, p.Empty = "Transcript", true
	case 1:
		p.Title = nonEmpty(title(t.runs[0].prompt), "Transcript of run "+visible(t.runs[0].id))
	default:
		p.Title = "Transcript of " + textfmt.PluralThousands(int64(len(t.runs)), "run")
	}
	var sub []string
	if len(t.o.Files) > 0 {
		sub = append(sub, visible(strings.Join(t.o.Files, " ")))
	}
	if span := t.span(); span != "" {
		sub = append(sub, span)
	}
	p.Sub = strings.Join(sub, " · ")
	if len(t.runs) > 1 {
		p.Totals = append([]string{textfmt.PluralThousands(int64(len(t.runs)), "run")}, totalsText(&t.total)...)
		for _, h := range t.runs {
			l := runLink{N: h.n, Prompt: nonEmpty(title(h.prompt), nonEmpty(h.promptless(), "(no prompt in the stream)")), Omitted: h.omitted}
			l.Outcome, l.OutClass = outcome(h.outcome)
			if len(h.where) > 0 {
				l.Meta = append(l.Meta, visible(strings.Join(h.where, " · ")))
			}
			if h.first != 0 {
				l.When = time.UnixMicro(h.first).In(t.o.Loc).Format("01-02 15:04")
			}
			if h.wallUS > 0 {
				l.Meta = append(l.Meta, eventtext.Duration(h.wallUS))
			}
			if h.tot.tokens > 0 {
				l.Meta = append(l.Meta, textfmt.Thousands(h.tot.tokens)+" tokens")
			}
			if h.tot.hasCost {
				l.Meta = append(l.Meta, eventtext.Cost(h.tot.costNano))
			}
			p.Runs = append(p.Runs, l)
		}
	}
	if t.omitted > 0 {
		cmd := ""
		for _, h := range t.runs {
			if h.omitted {
				cmd = h.cmd
				break
			}
		}
		have := "have"
		if t.omitted == 1 {
			have = "has"
		}
		p.Notes = append(p.Notes, fmt.Sprintf("%s of the run list (marked “not on this page”) %s no section: to open quickly, a page holds about %s of entries. A page of one of them alone: %s",
			textfmt.PluralThousands(int64(t.omitted), "run"), have, bytesText(t.o.MaxPage), cmd))
	}
	if t.badLines > 0 {
		p.Notes = append(p.Notes, textfmt.PluralThousands(int64(t.badLines), "line")+" of the input were not events and are not shown.")
	}
	p.Sections = template.HTML(t.sections.String())
	t.sections = bytes.Buffer{}
	var b strings.Builder
	if err := pageTemplate.Execute(&b, p); err != nil {
		return err
	}
	// Whatever value was not shown through visible on its way, no control
	// character of the data reaches the page (or the terminal it may be
	// written to): the page's own markup has none.
	_, err := io.WriteString(t.w, visible(b.String()))
	return err
}

// span is the time the page covers.
func (t *Writer) span() string {
	var a, b int64
	for _, h := range t.runs {
		if h.first != 0 && (a == 0 || h.first < a) {
			a = h.first
		}
		b = max(b, h.last)
	}
	if a == 0 {
		return ""
	}
	ta, tb := time.UnixMicro(a).In(t.o.Loc), time.UnixMicro(b).In(t.o.Loc)
	if ta.Format("2006-01-02") == tb.Format("2006-01-02") {
		return ta.Format("2006-01-02 15:04:05") + " – " + tb.Format("15:04:05 MST")
	}
	return ta.Format("2006-01-02 15:04") + " – " + tb.Format("2006-01-02 15:04 MST")
}

var funcs = template.FuncMap{
	"join": func(s []string) string { return strings.Join(s, " · ") },
	"n":    func(i int) string { return textfmt.Thousands(int64(i)) },
}

// promptless names a run without a prompt that evimport filed as
// SESSION/0: what the log holds before its first prompt (Claude Code's
// warm-up agents), which is no run a person asked for.
func (h *runHead) promptless() string {
	if h.prompt == "" && strings.HasSuffix(h.id, "/0") {
		return "before the first prompt"
	}
	return ""
}

// nonEmpty is s, or def when s is empty.
var nonEmpty = eventtext.NonEmpty
