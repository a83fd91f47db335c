// Package zot reads zot's RPC events for zot2gp: what zot2gp needs of one
// line (Scan, without decoding it) and glasspane's classification of each
// type. The classification is not written here: it is the zot vocabulary's
// table in pkg/event, which also says what each type means; this package
// only indexes it the way a converter looks it up.
package zot

import "github.com/evtools/evtools/pkg/event"

// CommandPrompt is the command of the request that starts a run; zot acks
// it with a response whose command is "prompt".
const CommandPrompt = "prompt"

// Types lists every zot event type, in the order a run produces them.
var Types []string

// Glasspane is glasspane's mapping: the glasspane kind of every zot type
// it classifies. A response is not in it (a failed one is
// FailedResponseKind, see Kind); the types in Unmapped are not in it.
var Glasspane = map[string]string{}

// FailedResponseKind is the kind of a response with success:false: a
// command that failed is an error to glasspane.
var FailedResponseKind = event.Zot.FailedKind

// Unmapped lists the zot types glasspane does not map: a successful
// response (no state change), usage, and tool_call (tool_use_start already
// starts the execution). They keep their zot type as their kind.
var Unmapped []string

func init() {
	for _, e := range event.Zot.Entries {
		Types = append(Types, e.Kind)
		if e.Glasspane != "" {
			Glasspane[e.Kind] = e.Glasspane
		} else {
			Unmapped = append(Unmapped, e.Kind)
		}
	}
}

// Row returns the zot vocabulary's row for the type, or nil for a type
// zot added after the table was written.
func Row(typ []byte) *event.Entry { return event.Lookup(typ, nil, true) }

// IsSessionLevel reports whether events of type typ belong to the session
// rather than to the agent (the envelope's agent_id is then empty).
func IsSessionLevel(typ string) bool {
	r := Row([]byte(typ))
	return r != nil && r.Session
}

// Kind returns the envelope kind of a zot event of type typ: glasspane's
// kind when it maps the type, else typ itself (so the stream stays
// lossless, and types zot adds later pass through). failed says the event
// says success:false; glasspane takes a failed response for an error.
// mapped reports whether glasspane classifies the event at all; --ui keeps
// only those.
func Kind(typ string, failed bool) (kind string, mapped bool) {
	if failed && typ == event.Zot.FailedType {
		return FailedResponseKind, true
	}
	if k, ok := Glasspane[typ]; ok {
		return k, true
	}
	return typ, false
}
