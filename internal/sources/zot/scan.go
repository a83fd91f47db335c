package zot

import (
	"errors"
	"fmt"

	"github.com/evtools/evtools/pkg/event"
	"github.com/evtools/evtools/pkg/jsonscan"
)

// Fields are what zot2gp reads from one event line: raw JSON values,
// sub-slices of the line, nil when the member is absent. When a key is
// repeated the last one wins, as in encoding/json (and serde_json, which
// glasspane uses).
type Fields struct {
	Type    []byte // the raw "type" value, a JSON string
	Time    []byte // the raw "time" value, if any
	Success []byte // the raw "success" value, if any
	Command []byte // the raw "command" value, if any

	// TypeValues holds every top-level "type" value, duplicates included,
	// in order: --format bare rewrites them all.
	TypeValues [][]byte

	// Name is the decoded type (event.String): a sub-slice of the line
	// when the value has no escapes, else decoded into a buffer Fields
	// owns. Valid until the next Scan.
	Name []byte

	// Row is the zot vocabulary's row for the type: what the event means,
	// glasspane's kind for it, whether it is the session's. nil for a
	// type the table does not know.
	Row *event.Entry

	buf []byte
}

// ErrNoType is the reason given for a JSON object without a "type" member:
// it is not a zot event.
var ErrNoType = errors.New(`not a zot event: no "type" member`)

// ErrEmptyType is the reason given for an event whose type is "".
var ErrEmptyType = errors.New(`not a zot event: "type" is empty`)

// Scan checks that line is one JSON object with a non-empty string "type"
// and fills f from its top-level members. The error says, for a user, why
// the line is not a zot event: jsonscan's reason when it is not a JSON
// object, ErrNoType, ErrEmptyType, or a wrong type of "type".
func Scan(line []byte, f *Fields) error {
	f.Type, f.Time, f.Success, f.Command = nil, nil, nil, nil
	f.TypeValues = f.TypeValues[:0]
	f.Name, f.Row = nil, nil
	err := jsonscan.Members(line, func(key, value []byte) {
		// Dispatch on the first byte and length first: most keys are none
		// of the four, and the comparison is on the hot path.
		if len(key) == 0 {
			return
		}
		switch key[0] {
		case 't':
			if jsonscan.KeyIs(key, "type") {
				f.Type = value
				f.TypeValues = append(f.TypeValues, value)
			} else if jsonscan.KeyIs(key, "time") {
				f.Time = value
			}
		case 's':
			if jsonscan.KeyIs(key, "success") {
				f.Success = value
			}
		case 'c':
			if jsonscan.KeyIs(key, "command") {
				f.Command = value
			}
		case '\\':
			// An escaped first letter: compare decoded.
			switch {
			case jsonscan.KeyIs(key, "type"):
				f.Type = value
				f.TypeValues = append(f.TypeValues, value)
			case jsonscan.KeyIs(key, "time"):
				f.Time = value
			case jsonscan.KeyIs(key, "success"):
				f.Success = value
			case jsonscan.KeyIs(key, "command"):
				f.Command = value
			}
		}
	})
	if err != nil {
		return err
	}
	if f.Type == nil {
		return ErrNoType
	}
	if k := jsonscan.KindOf(f.Type); k != jsonscan.String {
		return fmt.Errorf(`not a zot event: "type" is %s, not a string`, describe(k))
	}
	f.Name, _ = event.String(f.Type, &f.buf) // a valid string: Scan checked it
	if len(f.Name) == 0 {
		return ErrEmptyType
	}
	f.Row = Row(f.Name)
	return nil
}

// describe names a kind of JSON value for a message.
func describe(k jsonscan.Kind) string {
	switch k {
	case jsonscan.Null, jsonscan.True, jsonscan.False:
		return k.String()
	case jsonscan.Array, jsonscan.Object:
		return "an " + k.String()
	}
	return "a " + k.String()
}

// Failed reports whether the event says success:false (a response to a
// command that failed). Only the literal false counts.
func (f *Fields) Failed() bool {
	return len(f.Success) == 5 && string(f.Success) == "false"
}

// IsPromptAck reports whether the event is zot's successful response to a
// prompt: the start of a run.
func (f *Fields) IsPromptAck() bool {
	r := f.Row
	return r != nil && r.Meaning == event.Ack && !f.Failed() && f.Command != nil &&
		jsonscan.StringEquals(f.Command, CommandPrompt)
}
