package evimport

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/devtools/corpus"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// BenchmarkDecode decodes the lines of each agent's logs into their
// record types with the tables made from them (table.go; named "hand",
// as the hand decoders they replaced were, to compare runs), with
// encoding/json/v2 (github.com/go-json-experiment/json) and with
// encoding/json: issue 31 asked whether v2 was fast enough to take the
// place of the hand decoders.
// The lines are evgen's (internal/devtools/corpus); with EVIMPORT_AGENTS set to a
// folder of real logs (../shared/agents), those of its <kind> folder
// instead, for a measurement run only: the tests never read it.
func BenchmarkDecode(b *testing.B) {
	for _, kind := range corpus.AgentKinds {
		b.Run(kind, func(b *testing.B) {
			lines := benchLines(b, kind)
			if len(lines) == 0 {
				b.Skip("no lines")
			}
			var size int64
			for _, l := range lines {
				size += int64(len(l))
			}
			switch kind {
			case "claude":
				decodeBenches(b, claudeLineTable, lines, size)
			case "codex":
				decodeBenches(b, codexLineTable, lines, size)
			case "pi":
				decodeBenches(b, piLineTable, lines, size)
			case "gemini":
				decodeBenches(b, geminiRecordTable, lines, size)
			}
		})
	}
}

// benchLines are the lines of kind's logs: of the folder EVIMPORT_AGENTS
// names, or of 8 MB of evgen's.
func benchLines(b *testing.B, kind string) [][]byte {
	root := filepath.Join(os.Getenv("EVIMPORT_AGENTS"), kind)
	if os.Getenv("EVIMPORT_AGENTS") == "" {
		root = b.TempDir()
		if err := corpus.Agents(root, kind, 8<<20, 1); err != nil {
			b.Fatal(err)
		}
	}
	var lines [][]byte
	filepath.WalkDir(root, func(p string, d fs.DirEntry, _ error) error {
		if d == nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		for l := range bytes.SplitSeq(data, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 && json.Valid(l) {
				lines = append(lines, l)
			}
		}
		return nil
	})
	return lines
}

// v2Options make v2 read a line as the tables do: a key twice
// (the last wins) and invalid UTF-8 (as U+FFFD) are not errors, and a
// json.Number (pi's version), which v2 does not know, is a number or a
// string that holds one.
var v2Options = jsonv2.JoinOptions(
	jsontext.AllowDuplicateNames(true),
	jsontext.AllowInvalidUTF8(true),
	jsonv2.WithUnmarshalers(jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, n *json.Number) error {
		switch dec.PeekKind() {
		case '0':
			v, err := dec.ReadValue()
			*n = json.Number(v)
			return err
		case '"':
			v, err := dec.ReadValue()
			*n = json.Number(unquote(v))
			return err
		}
		return jsonv2.SkipFunc
	})),
)

func decodeBenches[T any](b *testing.B, tb recordTable[T], lines [][]byte, size int64) {
	// each decoder reads what evimport reads of a line: its members, a
	// Codex line's payload, and a message's content blocks (those of
	// v1's and v2's by contentRead, as the tests compare them)
	b.Run("hand", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		d := &fields{}
		for b.Loop() {
			for _, l := range lines {
				var v T
				d.err, d.hard, d.path, d.check, d.objs, d.line, d.blockErr = nil, false, d.path[:0], true, d.objs[:0], nil, nil
				tb.decodeLine(d, l, &v)
				if cl, ok := any(&v).(*codexLine); ok && len(cl.Payload) > 0 && cl.Payload[0] == '{' {
					var p codexPayload
					codexPayloadTable.decode(d, cl.Payload, &p)
				}
				if d.err != nil {
					b.Fatalf("%v\n%s", d.err, l)
				}
			}
		}
	})
	b.Run("v2", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range lines {
				var v T
				if err := jsonv2.Unmarshal(l, &v, v2Options); err != nil {
					b.Fatalf("%v\n%s", err, l)
				}
				if cl, ok := any(&v).(*codexLine); ok && len(cl.Payload) > 0 && cl.Payload[0] == '{' {
					var p codexPayload
					jsonv2.Unmarshal(cl.Payload, &p, v2Options)
				}
				contentRead(&v)
			}
		}
	})
	b.Run("v1", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range lines {
				var v T
				if err := json.Unmarshal(l, &v); err != nil {
					b.Fatalf("%v\n%s", err, l)
				}
				if cl, ok := any(&v).(*codexLine); ok && len(cl.Payload) > 0 && cl.Payload[0] == '{' {
					var p codexPayload
					json.Unmarshal(cl.Payload, &p)
				}
				contentRead(&v)
			}
		}
	})
}
