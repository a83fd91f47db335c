// Package eventtext reads the values of events that the views show people
// (a message's text whether it is a string or a list of content blocks, a
// model's name whether it is a string or an object, the argument that
// says most about a tool call, whether an outcome ended well) and writes
// costs and durations, the same way in the pretty view and the HTML
// transcript. Redactor is what both views take for the text they join.
package eventtext

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/evtools/evtools/internal/core/textfmt"
	"github.com/evtools/evtools/pkg/event"
	"github.com/evtools/evtools/pkg/jsonscan"
)

// Text is the text of a value: a string, the text blocks of a content
// array ({"type":"text","text":...}) joined, or an object's "text".
func Text(raw []byte) string {
	switch jsonscan.KindOf(raw) {
	case jsonscan.String:
		var buf []byte
		s, _ := event.String(raw, &buf)
		return string(s)
	case jsonscan.Array:
		var blocks []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(raw, &blocks) != nil {
			return ""
		}
		var b strings.Builder
		for _, bl := range blocks {
			if bl.Type == "" || bl.Type == "text" {
				b.WriteString(bl.Text)
			}
		}
		return b.String()
	case jsonscan.Object:
		v, _ := jsonscan.Lookup(raw, "text")
		return Text(v)
	}
	return ""
}

// BodyText is the text of what an event says, its Body (a message, a
// reply, an error, a reason), as Text reads it.
func BodyText(ev *event.Event) string { return Text(ev.Field(event.Body)) }

// Calls names the tool calls in a content array: "calls bash, read"; "(no
// text)" when it has none.
func Calls(raw []byte) string {
	var blocks []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return Compact(raw)
	}
	var names []string
	for _, bl := range blocks {
		if bl.Name != "" {
			names = append(names, bl.Name)
		}
	}
	if len(names) == 0 {
		return "(no text)"
	}
	return "calls " + strings.Join(names, ", ")
}

// Model is a model's name: a string, or an object's "model" (a run log's
// resolved model).
func Model(raw []byte) string {
	switch jsonscan.KindOf(raw) {
	case jsonscan.String:
		return Text(raw)
	case jsonscan.Object:
		v, _ := jsonscan.Lookup(raw, "model")
		return Text(v)
	}
	return ""
}

// argKeys are the arguments that say most about a call, best first.
var argKeys = []string{"command", "cmd", "argv", "path", "file_path", "filename", "file", "pattern", "query", "url", "glob", "regex", "dir", "directory", "root", "name",
	"description", "message", "prompt", "input"}

// BestArg is the argument that says most about a call (its command, its
// path, its pattern), else the arguments compact; arguments that are not
// JSON (pieces that never completed) are shown as they came.
func BestArg(args []byte) string {
	args = Args(args)
	if jsonscan.Check(args) != nil {
		return string(args)
	}
	if jsonscan.KindOf(args) == jsonscan.Object {
		for _, k := range argKeys {
			v, ok := jsonscan.Lookup(args, k)
			if !ok {
				continue
			}
			switch jsonscan.KindOf(v) {
			case jsonscan.String:
				text := Text(v)
				if files := patchFiles(text); files != "" {
					return files // Codex's apply_patch: what it changes
				}
				return OneLine(text)
			case jsonscan.Array: // an argv: its words
				var words []string
				if json.Unmarshal(v, &words) == nil && len(words) > 0 {
					return OneLine(strings.Join(words, " "))
				}
			}
		}
	}
	return Compact(args)
}

// patchFiles names the files a patch in the apply_patch form changes
// ("update a.go, add b.go"); "" when s is no such patch.
func patchFiles(s string) string {
	if !strings.HasPrefix(strings.TrimSpace(s), "*** Begin Patch") {
		return ""
	}
	var files []string
	for _, l := range strings.Split(s, "\n") {
		for _, op := range []string{"Update", "Add", "Delete"} {
			if f, ok := strings.CutPrefix(strings.TrimSpace(l), "*** "+op+" File: "); ok {
				files = append(files, strings.ToLower(op)+" "+f)
			}
		}
	}
	return strings.Join(files, ", ")
}

// Args are a call's arguments as JSON: sent as a JSON text (a string),
// they are that text.
func Args(args []byte) []byte {
	if jsonscan.KindOf(args) == jsonscan.String {
		var buf []byte
		if s, ok := event.String(args, &buf); ok {
			args = s
		}
	}
	return bytes.TrimSpace(args)
}

// Compact is a JSON value on one line.
func Compact(raw []byte) string {
	if bytes.ContainsAny(raw, "\n\r\t") || bytes.Contains(raw, []byte("  ")) {
		var b bytes.Buffer
		if json.Compact(&b, raw) == nil {
			return b.String()
		}
	}
	return string(raw)
}

// OneLine joins the lines of s with " ⏎ " so that it fits one line.
func OneLine(s string) string {
	s = strings.TrimSpace(s)
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	lines := strings.FieldsFunc(s, func(c rune) bool { return c == '\n' || c == '\r' })
	return strings.Join(lines, " ⏎ ")
}

// Cost is a cost in dollars as evsum's reports print it (textfmt.Money).
func Cost(nano int64) string { return "$" + textfmt.Money(nano) }

// Duration is a time span in µs, written to the step its size chooses,
// as every view for people writes one (textfmt): 850ms, 2.37s, 34.6s, 1m52s.
func Duration(us int64) string {
	return textfmt.Duration(us, textfmt.StepOf(us))
}

// Seconds is a number of seconds (a JSON number) as a Duration; "" when
// it is not a number, 0 (a sub-agent skipped, no time spent worth a
// figure) or out of reason.
func Seconds(raw []byte) string {
	us, ok := SecondsUS(raw)
	if !ok {
		return ""
	}
	return Duration(us)
}

// SecondsUS is a number of seconds (a JSON number) in µs; ok is false as
// for Seconds.
func SecondsUS(raw []byte) (int64, bool) {
	if jsonscan.KindOf(raw) != jsonscan.Number {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f <= 0 || f > 1e12 {
		return 0, false
	}
	return int64(f * 1e6), true
}

// EndedWell reports whether a run's or an agent's outcome says it ended
// well, in any vocabulary's word for it: every view shows those as they
// are, and any other outcome in capitals.
func EndedWell(outcome string) bool {
	switch outcome {
	case "ok", "done", "completed", "success", "ended":
		return true
	}
	return false
}

// Redactor is what a view needs of internal/filters/redact's Redactor,
// which internal/views/output hands it for the text it joins from pieces:
// named by what it does, so that the views depend on no more of
// redaction than that.
type Redactor interface {
	// Text appends text to dst with its secrets replaced.
	Text(dst, text []byte) []byte
	// Line appends a JSON text with the secrets in its strings replaced;
	// changed is false (and dst as it was) when there was none.
	Line(dst, line []byte) (out []byte, changed bool)
}

// NonEmpty is s, or def when s is empty.
func NonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Number is a JSON number as written (a step, a count), "" for any
// other value.
func Number(raw []byte) string {
	if jsonscan.KindOf(raw) == jsonscan.Number {
		return string(raw)
	}
	return ""
}
