package redact

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite testdata/*.jsonl from the corpus in corpus_test.go")

// redactOne redacts line with a new Redactor and returns the output (the
// line itself when nothing changed) and the counts.
func redactOne(t *testing.T, line string) (string, bool, []Count) {
	t.Helper()
	r := New()
	out, changed := r.Line(nil, []byte(line))
	if !changed {
		if len(out) != 0 {
			t.Fatalf("unchanged, but %q appended", out)
		}
		out = []byte(line)
	}
	if !json.Valid(out) {
		t.Fatalf("not valid JSON: %s", out)
	}
	return string(out), changed, r.Counts()
}

func TestEveryRuleHasAFake(t *testing.T) {
	have := map[string]bool{}
	for _, f := range fakes {
		have[f.rule] = true
	}
	for _, m := range memberFakes {
		have[m.rule] = true
	}
	for _, b := range Builtins {
		if !have[b.Name] {
			t.Errorf("rule %s has no fake secret in the corpus", b.Name)
		}
	}
}

func TestFakes(t *testing.T) {
	for i, f := range fakes {
		t.Run(fmt.Sprintf("%d-%s", i, f.rule), func(t *testing.T) {
			text := fmt.Sprintf(f.context, f.secret)
			line := envelope(1, text)
			out, changed, counts := redactOne(t, line)
			if !changed {
				t.Fatalf("%s: not found in %q", f.rule, text)
			}
			want := envelope(1, strings.Replace(text, f.secret, "[REDACTED:"+f.rule+"]", 1))
			if out != want {
				t.Errorf("got  %s\nwant %s", out, want)
			}
			if !slices.Equal(counts, []Count{{f.rule, 1}}) {
				t.Errorf("counts %v, want 1 %s", counts, f.rule)
			}
		})
	}
}

func TestMemberFakes(t *testing.T) {
	for _, m := range memberFakes {
		t.Run(m.key, func(t *testing.T) {
			out, changed, counts := redactOne(t, memberEnvelope(1, m.key, m.value))
			if !changed {
				t.Fatalf("%s: %q not found", m.key, m.value)
			}
			want := "[REDACTED:" + m.rule + "]"
			if m.rule == "authorization-header" {
				want = "Bearer " + want
			}
			if w := memberEnvelope(1, m.key, want); out != w {
				t.Errorf("got  %s\nwant %s", out, w)
			}
			if !slices.Equal(counts, []Count{{m.rule, 1}}) {
				t.Errorf("counts %v, want 1 %s", counts, m.rule)
			}
		})
	}
}

func TestNearMisses(t *testing.T) {
	for _, text := range nearMisses {
		if out, changed, _ := redactOne(t, envelope(1, text)); changed {
			t.Errorf("changed:\n%q\n%s", text, out)
		}
	}
	for _, m := range memberNearMisses {
		if out, changed, _ := redactOne(t, memberEnvelope(1, m.key, m.value)); changed {
			t.Errorf("changed: %s", out)
		}
	}
}

// A secret written with escapes is found; the string that held it is
// written anew by jsontext's policy, and nothing else changes.
func TestEscapes(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":"caf\u00e9 \/x","b":"\u0041KIAFAKE4EXAMPLE7KEY caf\u00e9\/x"}`,
			`{"a":"caf\u00e9 \/x","b":"[REDACTED:aws-access-key-id] café/x"}`},
		{`{"b":"AKIAFAKE4EXAM\u0050LE7KEY"}`, `{"b":"[REDACTED:aws-access-key-id]"}`},
		{`{"u":"https:\/\/me:s3cr3t-pw@host\/"}`, `{"u":"https://me:[REDACTED:url-credentials]@host/"}`},
		// JSON inside a string with its slashes escaped, as PHP writes
		// it: the string holds mysql:\/\/root:...@host\/db itself.
		{`{"out":"{\"dsn\":\"mysql:\\/\\/root:Pw-9f3k2@db.internal\\/shop\"}"}`,
			`{"out":"{\"dsn\":\"mysql:\\/\\/root:[REDACTED:url-credentials]@db.internal\\/shop\"}"}`},
		// A tab before the token, and a control character after it.
		{`{"t":"k=\tghp_FAKEa1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6\u0001"}`, `{"t":"k=\t[REDACTED:github-token]\u0001"}`},
		// JSON inside a string, its newlines escaped once more.
		{`{"args":"{\"cmd\":\"cat\\nghp_FAKEa1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6\"}"}`,
			`{"args":"{\"cmd\":\"cat\\n[REDACTED:github-token]\"}"}`},
		// Invalid UTF-8 in a string that changes becomes U+FFFD.
		{"{\"t\":\"\xff ghp_FAKEa1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6\"}", `{"t":"\ufffd [REDACTED:github-token]"}`},
		// Spaces of every kind between the tokens of the line stay.
		{"{ \"k\" : [ \"x\" , \"ghp_FAKEa1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6\" ] , \"n\" : 1 }",
			"{ \"k\" : [ \"x\" , \"[REDACTED:github-token]\" ] , \"n\" : 1 }"},
	} {
		out, _, _ := redactOne(t, tc.in)
		if out != tc.want {
			t.Errorf("%s\ngot  %s\nwant %s", tc.in, out, tc.want)
		}
	}
}

// Keys are never changed, whatever they hold; neither are numbers.
func TestKeysStay(t *testing.T) {
	for _, line := range []string{
		`{"ghp_FAKEa1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6":1}`,
		`{"password":12345678,"token":true,"secret":null,"api_key":["a","b"]}`,
		`{"x":{"password" : 12345678}}`,
	} {
		if out, changed, _ := redactOne(t, line); changed {
			t.Errorf("changed: %s", out)
		}
	}
	// The value of a member is told from a key after it.
	out, _, _ := redactOne(t, `{"password":"s3cret-pw-1","next":"x"}`)
	if out != `{"password":"[REDACTED:secret-assignment]","next":"x"}` {
		t.Error(out)
	}
	// An escaped key is read decoded.
	out, _, _ = redactOne(t, `{"pass\u0077ord":"s3cret-pw-1"}`)
	if out != `{"pass\u0077ord":"[REDACTED:secret-assignment]"}` {
		t.Error(out)
	}
}

// Not JSON: what is not a whole string stays as it is.
func TestNotJSON(t *testing.T) {
	for _, line := range []string{``, `"`, `{"a":"ghp_FAKEa1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6`, `{"a":"\u00"}`, "3"} {
		r := New()
		if out, changed := r.Line(nil, []byte(line)); changed {
			t.Errorf("%q changed: %s", line, out)
		}
	}
}

func TestClassify(t *testing.T) {
	for name, want := range map[string]nameKind{
		"OPENAI_API_KEY": secretName, "apiKey": secretName, "APIKey": secretName, "x-api-key": secretName,
		"password": secretName, "DB_PASS": secretName, "client_secret": secretName, "GITHUB_TOKEN": secretName,
		"accessToken": secretName, "spring.datasource.password": secretName, "--token": secretName,
		"SECRETS": secretName, "private_key": secretName, "signingKey": secretName,
		"aws_secret_access_key": awsName, "SecretAccessKey": awsName, "AWS_SECRET": awsName,
		"Authorization": authName, "Proxy-Authorization": authName,
		"PASS": notSecret, "tokenizer": notSecret, "max_tokens": notSecret, "eos_token": notSecret,
		"next_page_token": notSecret, "key": notSecret, "sort_key": notSecret, "public_key": notSecret,
		"keyboard": notSecret, "monkey": notSecret, "first_pass": notSecret, "token_type": notSecret,
		"": notSecret, "ke": notSecret, strings.Repeat("a", 60) + "_token": notSecret,
	} {
		if got := classify([]byte(name)); got != want {
			t.Errorf("classify(%q) = %d, want %d", name, got, want)
		}
	}
}

func TestCounts(t *testing.T) {
	r := New()
	line := []byte(envelope(1, "A=ghp_FAKEa1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6 B=ghp_FAKEa1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d7 AKIAFAKE4EXAMPLE7KEY"))
	r.Line(nil, line)
	r.Line(nil, line)
	want := []Count{{"github-token", 4}, {"aws-access-key-id", 2}}
	if got := r.Counts(); !slices.Equal(got, want) {
		t.Errorf("counts %v, want %v", got, want)
	}
	var b strings.Builder
	r.Report("evfilter", &b)
	if b.String() != "evfilter: redacted 4 github-token, 2 aws-access-key-id\n" {
		t.Errorf("report %q", b.String())
	}
	b.Reset()
	New().Report("evfilter", &b)
	if b.String() != "" {
		t.Errorf("report without findings: %q", b.String())
	}
}

// testdata/*.jsonl are the corpus of corpus_test.go.
func TestCorpusFiles(t *testing.T) {
	for name, want := range corpora() {
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s is not the corpus of corpus_test.go: go test ./internal/filters/redact -update", path)
		}
	}
}

// Each tool's golden script holds copies of the corpus files (a script
// reads only its own archive), the same bytes; and no output it expects
// holds a fake secret.
func TestScriptCorpora(t *testing.T) {
	files := corpora()
	for _, tool := range []string{"../../sources/zot2gp", "../evfilter", "../evcursor"} {
		path := filepath.Join(tool, "testdata", "redact.txtar")
		a, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		copies := 0
		for _, f := range a.Files {
			if want, ok := files[f.Name]; ok {
				copies++
				if string(f.Data) != want {
					t.Errorf("%s: %s differs from the corpus: copy testdata/%s into it", path, f.Name, f.Name)
				}
				continue
			}
			for _, fk := range fakes {
				if bytes.Contains(f.Data, []byte(fk.secret)) {
					t.Errorf("%s: %s holds the fake %s secret %.20s...", path, f.Name, fk.rule, fk.secret)
				}
			}
			for _, m := range memberFakes {
				if bytes.Contains(f.Data, []byte(m.value)) {
					t.Errorf("%s: %s holds the fake %s secret %.20s...", path, f.Name, m.rule, m.value)
				}
			}
		}
		if copies == 0 {
			t.Errorf("%s: no copy of the corpus", path)
		}
	}
}

// A PEM header without its END line is redacted with the base64 lines
// after it; many such headers in one string cost no search each to the
// end of the string.
func TestPrivateKeyWithoutEnd(t *testing.T) {
	head := "-----BEGIN EC PRIVATE KEY-----\n"
	out, _, _ := redactOne(t, envelope(1, head+"MHcCAQEEIFAKEFAKEFAKE\nAwEHoUQDQgAE\n\nmore text"))
	if out != envelope(1, "[REDACTED:private-key]\n\nmore text") {
		t.Error(out)
	}
	text := strings.Repeat(head+"x y\n", 20000) + strings.Repeat("z", 1<<20)
	start := time.Now()
	_, _, counts := redactOne(t, envelope(1, text))
	if counts[0].N != 20000 {
		t.Errorf("counts %v", counts)
	}
	if d := time.Since(start); d > 5*time.Second { // it takes milliseconds
		t.Errorf("took %v", d)
	}
}
