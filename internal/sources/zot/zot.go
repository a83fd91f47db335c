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

// Glasspane is glasspane's mapping: the glasspane kind of every zot type
// it classifies. A response is not in it (a failed one is
// FailedResponseKind, see Kind), nor are usage and tool_call, which keep
// their type as their kind.
var Glasspane = map[string]string{}

// FailedResponseKind is the kind of a response with success:false: a
// command that failed is an error to glasspane.
var FailedResponseKind = event.Zot.FailedKind

func init() {
	for _, e := range event.Zot.Entries {
		if e.Glasspane != "" {
			Glasspane[e.Kind] = e.Glasspane
		}
	}
}

// Row returns the zot vocabulary's row for the type, or nil for a type
// zot added after the table was written.
func Row(typ []byte) *event.Entry { return event.Lookup(typ, nil, true) }

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
