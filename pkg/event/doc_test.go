package event

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the meanings table in docs/formats.md")

// TestDocsTable: docs/formats.md lists every row of every vocabulary with
// its meaning, as the tables say (go test ./pkg/event -update rewrites it).
func TestDocsTable(t *testing.T) {
	const doc = "../../docs/formats.md"
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	begin, end := "<!-- meanings:begin -->\n", "<!-- meanings:end -->"
	i, j := strings.Index(string(b), begin), strings.Index(string(b), end)
	if i < 0 || j < i {
		t.Fatalf("%s has no meanings markers", doc)
	}
	want := meaningsTable()
	got := string(b[i+len(begin) : j])
	if got == want {
		return
	}
	if !*update {
		t.Fatalf("%s: the meanings table differs from the vocabularies; go test ./pkg/event -update rewrites it\n got:\n%s\nwant:\n%s", doc, got, want)
	}
	out := string(b[:i+len(begin)]) + want + string(b[j:])
	if err := os.WriteFile(doc, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}

func meaningsTable() string {
	var b strings.Builder
	flagNames := []struct {
		f    Flags
		name string
	}{{Delta, "delta"}, {Restated, "restated"}, {Final, "final"}, {Turn, "turn"}}
	fieldNames := [numFields]string{ID: "id", Name: "name", Args: "args", Body: "text", Outcome: "outcome",
		Model: "model", Step: "step", Wall: "wall", Stop: "stop", IsError: "is_error", OK: "ok", Latency: "latency",
		Thinking: "thinking", Parent: "parent"}
	for _, v := range Vocabularies() {
		key := "kind"
		if v.Raw {
			key = "type"
		}
		b.WriteString("\n**" + v.Name + "**")
		if v.Strict {
			b.WriteString(" (strict)")
		}
		b.WriteString("\n\n| " + key + " | when | meaning | marks | fields (payload member) |\n|---|---|---|---|---|\n")
		for _, e := range v.Entries {
			when := ""
			switch {
			case e.Type != "":
				when = "payload type `" + e.Type + "`"
			case e.Needs != 0:
				when = "has `" + strings.ReplaceAll(e.Members[e.Needs], "|", "` or `") + "`"
			}
			var marks, fields []string
			for _, fl := range flagNames {
				if e.Flags&fl.f != 0 {
					marks = append(marks, fl.name)
				}
			}
			for f, m := range e.Members {
				if m != "" {
					fields = append(fields, fieldNames[f]+" `"+strings.ReplaceAll(m, "|", "` or `")+"`")
				}
			}
			b.WriteString("| `" + e.Kind + "` | " + when + " | " + e.Meaning.String() + " | " +
				strings.Join(marks, ", ") + " | " + strings.Join(fields, ", ") + " |\n")
		}
	}
	return b.String()
}
