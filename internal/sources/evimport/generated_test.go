package evimport

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/devtools/corpus"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/rogpeppe/go-internal/txtar"
)

// TestCorpusKinds holds the generator's agents (evgen -kind) to the
// table of sources: each is a source, in the table's order.
func TestCorpusKinds(t *testing.T) {
	at := -1
	for _, kind := range corpus.AgentKinds {
		src := sourceNamed(kind)
		if src == nil {
			t.Fatalf("corpus.AgentKinds has %q, no source of the table", kind)
		}
		if slices.Index(sources, src) < at {
			t.Errorf("corpus.AgentKinds: %q out of the table's order", kind)
		}
		at = slices.Index(sources, src)
	}
}

// TestGeneratedLogs converts the logs evgen writes for the benchmarks:
// they are in formats evimport knows whole (no bad line, no record of an
// unknown type), every tool call has its result, and Claude's responses
// written as several lines, and replayed in progress lines, are each one
// model call.
func TestGeneratedLogs(t *testing.T) {
	for _, kind := range corpus.AgentKinds {
		t.Run(kind, func(t *testing.T) {
			home := t.TempDir()
			if err := corpus.Agents(home, kind, 1<<20, 2); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr strings.Builder
			if code := Main([]string{home}, cli.Stdio{In: strings.NewReader(""), Out: &stdout, Err: &stderr}); code != 0 || stderr.Len() > 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			calls, results := map[string]bool{}, map[string]bool{}
			responses := map[string]int{}
			agents := map[string]bool{}
			for _, line := range strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n") {
				var e struct {
					Kind    string
					AgentID string `json:"agent_id"`
					Payload struct {
						ID         string
						ResponseID string `json:"response_id"`
					}
				}
				if err := json.Unmarshal([]byte(line), &e); err != nil {
					t.Fatal(err)
				}
				agents[e.AgentID] = true
				switch e.Kind {
				case "tool_call":
					calls[e.Payload.ID] = true
				case "tool_result":
					results[e.Payload.ID] = true
				case "model_result":
					responses[e.Payload.ResponseID]++
				}
			}
			for id := range calls {
				if !results[id] {
					t.Errorf("tool call %s has no result", id)
				}
			}
			if kind != "pi" && kind != "gemini" && len(agents) < 3 {
				t.Errorf("agents %v: no subagent", agents)
			}
			if kind == "claude" {
				want := claudeResponses(t, home)
				if len(responses) != len(want) {
					t.Errorf("%d responses converted, the logs hold %d", len(responses), len(want))
				}
				for id, n := range responses {
					if n != 1 || !want[id] {
						t.Errorf("response %s: %d model_result events", id, n)
					}
				}
			}
		})
	}
}

// claudeResponses are the message ids of the assistant lines in the
// Claude Code files under home.
func claudeResponses(t *testing.T, home string) map[string]bool {
	ids := map[string]bool{}
	filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var l struct {
				Type    string
				Message struct{ ID string }
			}
			json.Unmarshal(sc.Bytes(), &l)
			if l.Type == "assistant" {
				ids[l.Message.ID] = true
			}
		}
		return nil
	})
	return ids
}

// TestBoundedMemoryKeepsBytes converts the same logs of every agent with
// the events spooled to a file and every Claude and Codex file let go
// after its first lines and read again with its group, as a large input
// is: the output is the same bytes as when everything is held.
func TestBoundedMemoryKeepsBytes(t *testing.T) {
	home := t.TempDir()
	for i, kind := range corpus.AgentKinds {
		if err := corpus.Agents(home, kind, 300<<10, uint64(i+1)); err != nil {
			t.Fatal(err)
		}
	}
	// and the fixtures of the golden scripts, each rule's case
	scripts, _ := filepath.Glob("testdata/*.txtar")
	for _, script := range scripts {
		a, err := txtar.ParseFile(script)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			if rest, ok := strings.CutPrefix(f.Name, "home/"); ok {
				path := filepath.Join(home, "fixtures", filepath.Base(script), filepath.FromSlash(rest))
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, f.Data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	convert := func() string {
		var stdout, stderr strings.Builder
		code := Main([]string{home}, cli.Stdio{In: strings.NewReader(""), Out: &stdout, Err: &stderr})
		return fmt.Sprintf("exit %d\n%s\n%s", code, stderr.String(), stdout.String())
	}
	held := convert()
	defer func(s int64) { spoolInMemory = s }(spoolInMemory)
	spoolInMemory = 0
	if bounded := convert(); bounded != held {
		t.Fatalf("bounded memory changes the output: %d bytes against %d", len(bounded), len(held))
	}
	if strings.Count(held, "\n") < 1000 {
		t.Fatalf("only %d events", strings.Count(held, "\n"))
	}
}
