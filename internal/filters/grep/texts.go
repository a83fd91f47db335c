package grep

import (
	"github.com/evtools/evtools/pkg/event"
	"github.com/evtools/evtools/pkg/jsonscan"
)

// Source says which text of an event a match is in.
type Source struct {
	What string // prompt, reply, thinking, args, output, error, task, summary, reason, rule
	Tool string // the tool's name, for args and output
}

// The texts searched are the fields of pkg/event's meanings that hold
// what was said (Texts documents them): Body, Thinking and Args. Kinds no
// vocabulary gives a meaning hold none, but for the few below, which
// evimport writes and the envelope vocabularies do not know.
var extra = map[string]string{
	"compaction": "summary", // evimport: what the agent kept of its context
}

// bodyMembers are the members of a block of a text that is no string
// (zot's and glasspane's content blocks, a tool's structured output):
// what the blocks say, not their types, ids or the data of an image.
var bodyMembers = []string{"text", "thinking", "content", "output", "error", "message", "summary"}

// whatBody names the Body text of each meaning.
var whatBody = map[event.Meaning]string{
	event.UserMessage: "prompt",
	event.Text:        "reply",
	event.ModelError:  "error",
	event.ModelEnd:    "error",
	event.ToolUpdate:  "output",
	event.ToolEnd:     "output",
	event.Error:       "error",
	event.Kill:        "reason",
	event.Guardrail:   "rule",
	event.AgentStart:  "task",
	event.AgentEnd:    "error",
	event.Decision:    "reason",
	event.Ack:         "error",
}

// eachText calls fn with each searched text of ev, decoded (into *buf
// when it has escapes: valid until the next call), until fn returns false.
// With raw, fn gets each text as the line writes it, a JSON string with
// its quotes, and a Source without its tool.
func eachText(ev *event.Event, buf *[]byte, raw bool, fn func(Source, []byte) bool) {
	if ev.Entry == nil {
		if m := extra[string(ev.Name())]; m != "" && !ev.Raw && ev.Payload != nil {
			if v, ok := jsonscan.Lookup(ev.Payload, m); ok {
				walk(v, buf, false, raw, Source{What: m}, fn)
			}
		}
		return
	}
	var tool string
	if !raw && ev.Has(event.Name) && (ev.Meaning == event.ToolStart || ev.Meaning == event.ToolEnd || ev.Meaning == event.ToolUpdate) {
		if s, ok := ev.FieldString(event.Name, buf); ok {
			tool = string(s)
		}
	}
	if v := ev.Field(event.Body); v != nil {
		what := whatBody[ev.Meaning]
		if what == "" {
			what = "text"
		}
		if !walk(v, buf, false, raw, Source{What: what, Tool: tool}, fn) {
			return
		}
	}
	if v := ev.Field(event.Thinking); v != nil {
		if !walk(v, buf, false, raw, Source{What: "thinking"}, fn) {
			return
		}
	}
	if v := ev.Field(event.Args); v != nil {
		walk(v, buf, true, raw, Source{What: "args", Tool: tool}, fn)
	}
}

// walk calls fn with the strings of the JSON value v (decoded, or raw): itself when it is
// one; in an array, each element's; in an object, the values of every
// member with all, else those of bodyMembers. Keys are never searched.
func walk(v []byte, buf *[]byte, all, raw bool, src Source, fn func(Source, []byte) bool) bool {
	switch jsonscan.KindOf(v) {
	case jsonscan.String:
		if raw {
			return fn(src, v)
		}
		s, ok := event.String(v, buf)
		return !ok || fn(src, s)
	case jsonscan.Array:
		goOn := true
		jsonscan.Elements(v, func(value []byte) bool {
			goOn = walk(value, buf, all, raw, src, fn)
			return goOn
		})
		return goOn
	case jsonscan.Object:
		goOn := true
		jsonscan.Each(v, func(key, value []byte) bool {
			if !all && !member(key) {
				return true
			}
			goOn = walk(value, buf, all, raw, src, fn)
			return goOn
		})
		return goOn
	}
	return true
}

// member reports whether a block's key (raw, quoted or not) is one of
// bodyMembers.
func member(key []byte) bool {
	for _, m := range bodyMembers {
		if jsonscan.KeyIs(key, m) {
			return true
		}
	}
	return false
}
