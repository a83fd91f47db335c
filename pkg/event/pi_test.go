package event

import (
	"os"
	"strings"
	"testing"
)

// The pi mapping has one row for each zot type, in the zot vocabulary's
// order, each with a step of its own; a type it does not know is dropped.
func TestPiTable(t *testing.T) {
	if len(Pi) != len(Zot.Entries) {
		t.Fatalf("the pi mapping has %d rows, the zot vocabulary %d types", len(Pi), len(Zot.Entries))
	}
	steps := map[PiStep]string{}
	for i, r := range Pi {
		if r.Type != Zot.Entries[i].Kind {
			t.Errorf("row %d is %s, the zot vocabulary's is %s", i, r.Type, Zot.Entries[i].Kind)
		}
		if r.Step == PiDrop || steps[r.Step] != "" {
			t.Errorf("%s: step %d is PiDrop or %s's", r.Type, r.Step, steps[r.Step])
		}
		steps[r.Step] = r.Type
		if PiStepOf([]byte(r.Type)) != r.Step {
			t.Errorf("PiStepOf(%s) = %d, want %d", r.Type, PiStepOf([]byte(r.Type)), r.Step)
		}
		if r.Writes == "" {
			t.Errorf("%s: no words for the docs", r.Type)
		}
	}
	for _, typ := range []string{"compaction", "Done", "", "message_start"} {
		if s := PiStepOf([]byte(typ)); s != PiDrop {
			t.Errorf("PiStepOf(%q) = %d, want PiDrop", typ, s)
		}
	}
	// zot's stops, as docs/formats.md gives them.
	for stop, want := range map[string]string{"end": "stop", "tool_use": "toolUse", "error": "error"} {
		if got := PiStopReasons[stop]; got != want {
			t.Errorf("stop %s is pi's %q, want %q", stop, got, want)
		}
	}
}

// TestPiDocsTable: docs/zot2gp.md shows the pi mapping as the table says
// (go test ./pkg/event -update rewrites it).
func TestPiDocsTable(t *testing.T) {
	const doc = "../../docs/zot2gp.md"
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	begin, end := "<!-- pi:begin -->\n", "<!-- pi:end -->"
	i, j := strings.Index(string(b), begin), strings.Index(string(b), end)
	if i < 0 || j < i {
		t.Fatalf("%s has no pi markers", doc)
	}
	var w strings.Builder
	w.WriteString("\n| zot `type` | pi events written |\n|---|---|\n")
	for _, r := range Pi {
		w.WriteString("| `" + r.Type + "` | " + r.Writes + " |\n")
	}
	w.WriteString("| any other type | none: dropped, and counted on stderr at the end |\n\n")
	want := w.String()
	got := string(b[i+len(begin) : j])
	if got == want {
		return
	}
	if !*update {
		t.Fatalf("%s: the pi table differs from event.Pi; go test ./pkg/event -update rewrites it\n got:\n%s\nwant:\n%s", doc, got, want)
	}
	out := string(b[:i+len(begin)]) + want + string(b[j:])
	if err := os.WriteFile(doc, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}
