package e2e

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/devtools/corpus"
	"github.com/evtools/evtools/internal/devtools/picheck"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/shell/tools"
	"github.com/rogpeppe/go-internal/txtar"
)

// The tests of zot2gp --format pi against pi itself: pi's own RPC client
// drives zot2gp through a zot stand-in (TestPiRPCClient), and pi's
// TypeScript declarations type-check every line zot2gp writes
// (TestPiTypes). They need Node; the npm packages (pinned in
// testdata/pi/pins.json) are fetched with npm once and kept in the user's
// cache directory, so that the tests run offline after the first time.
// Without Node they are skipped, except in CI (CI set), where .ci/run
// installs it.

// piSkip skips the test for a missing tool, or fails it in CI.
func piSkip(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(why)
	}
	t.Skip(why)
}

var (
	piOnce    sync.Once
	piModules string // the node_modules folder with the pinned packages
	piErr     error
)

// piPackages returns the node_modules folder holding the pinned packages,
// fetching them the first time.
func piPackages(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		piSkip(t, "node is not installed (.ci/run installs nodejs and npm from Debian)")
	}
	piOnce.Do(func() { piModules, piErr = fetchPi() })
	if piErr != nil {
		piSkip(t, piErr.Error())
	}
	return piModules
}

type piPin struct {
	Name, Version, Integrity string
}

// fetchPi makes (or finds) a node_modules folder with the pinned packages
// in the user's cache directory: npm pack of each, its integrity checked,
// unpacked. No install script runs and no dependency is fetched: the tests
// need only the client (Node's standard library) and the declarations.
func fetchPi() (string, error) {
	pinsJSON, err := os.ReadFile("testdata/pi/pins.json")
	if err != nil {
		return "", err
	}
	var pins struct{ Packages []piPin }
	if err := json.Unmarshal(pinsJSON, &pins); err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	sum := sha256.Sum256(pinsJSON)
	dir := filepath.Join(cache, "evtools", "pi-e2e-"+hex.EncodeToString(sum[:8]))
	mods := filepath.Join(dir, "node_modules")
	if _, err := os.Stat(filepath.Join(dir, "complete")); err == nil {
		return mods, nil
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "", errors.New("npm is not installed, and the pinned pi packages are not in the cache yet (.ci/run installs nodejs and npm from Debian)")
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "fetch-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	for _, p := range pins.Packages {
		spec := p.Name + "@" + p.Version
		tgz, err := npmPack(tmp, spec, p.Integrity)
		if err != nil {
			return "", err
		}
		if err := untar(tgz, filepath.Join(tmp, "node_modules", filepath.FromSlash(p.Name))); err != nil {
			return "", fmt.Errorf("%s: %v", spec, err)
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, "complete"), pinsJSON, 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, e := os.Stat(filepath.Join(dir, "complete")); e != nil {
			return "", err
		}
		// another test process made it meanwhile
	}
	return mods, nil
}

// npmPack fetches the npm package spec as its tarball into dir (no
// install script runs), checks it against its pinned integrity and
// returns it; the file is removed.
func npmPack(dir, spec, integrity string) ([]byte, error) {
	cmd := exec.Command("npm", "pack", spec, "--json", "--prefer-offline", "--pack-destination", dir)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("npm pack %s: %v: %s (offline? the tests fetch it once, then run from the cache)", spec, err, strings.TrimSpace(stderr.String()))
	}
	var packed []struct{ Filename string }
	if err := json.Unmarshal(out, &packed); err != nil || len(packed) != 1 {
		return nil, fmt.Errorf("npm pack %s: unexpected output %q", spec, out)
	}
	file := filepath.Join(dir, filepath.Base(packed[0].Filename))
	tgz, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	os.Remove(file)
	h := sha512.Sum512(tgz)
	if got := "sha512-" + base64.StdEncoding.EncodeToString(h[:]); got != integrity {
		return nil, fmt.Errorf("npm pack %s: integrity %s, pinned %s", spec, got, integrity)
	}
	return tgz, nil
}

// untar unpacks an npm tarball (its files under package/) into dir.
func untar(tgz []byte, dir string) error {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		_, rel, ok := strings.Cut(h.Name, "/")
		if !ok || h.Typeflag != tar.TypeReg || !filepath.IsLocal(rel) {
			continue
		}
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, tr)
		if e := f.Close(); err == nil {
			err = e
		}
		if err != nil {
			return err
		}
	}
}

// piEvent is one event as pi's client received it.
type piEvent = map[string]any

// str follows a path of member names and array indexes in a decoded JSON
// value and returns the string there ("" when there is none).
func str(v any, path ...any) string {
	s, _ := dig(v, path...).(string)
	return s
}

func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k < 0 {
				k += len(a)
			}
			if k < 0 || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// TestPiRPCClient: pi's own RpcClient (from the pinned npm package) runs a
// zot stand-in that plays the shipped zot transcripts through one
// long-lived `zot2gp --format pi`, and calls promptAndWait for each. What
// the client received: the prompt resolved with its disposition; the
// events, in order, are the ones zot2gp writes for the transcript (the
// response aside, which the client takes as the prompt's answer) and end
// with agent_settled; the final assistant message's text is the joined
// deltas; the bash call has its id, name and args.command "uname -a"; the
// failed (401) run ends in an assistant message with stopReason "error".
// zot2gp's input stays open between the prompts, so each event reached the
// client because zot2gp flushed it, not because its input ended.
func TestPiRPCClient(t *testing.T) {
	mods := piPackages(t)
	if _, err := exec.LookPath("zot2gp"); err != nil {
		t.Fatal(err)
	}
	uname, _ := filepath.Abs("../../../examples/zot/uname.jsonl")
	auth, _ := filepath.Abs("../../../examples/zot/auth-401.jsonl")
	rpcClient := filepath.Join(mods, "@earendil-works", "pi-coding-agent", "dist", "modes", "rpc", "rpc-client.js")
	zotArgs := []string{"--format", "pi", "--ts=recorded"}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := append([]string{"testdata/pi/client.mjs", rpcClient, "testdata/pi/zot-standin.mjs", uname, auth, "--"}, zotArgs...)
	cmd := exec.CommandContext(ctx, "node", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client.mjs: %v\nstderr:\n%s", err, stderr.String())
	}
	var got struct {
		Prompts []struct {
			File, Message, Disposition string
			MS                         int
			Events                     []piEvent
		}
		StateError string
		Stderr     string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("client output: %v\n%s", err, out)
	}
	if len(got.Prompts) != 2 {
		t.Fatalf("%d prompts answered, want 2", len(got.Prompts))
	}
	for _, p := range got.Prompts {
		name := filepath.Base(p.File)
		t.Logf("%s: %d events in %d ms", name, len(p.Events), p.MS)
		if p.Disposition != "started" {
			t.Errorf("%s: the prompt resolved with disposition %q, want started", name, p.Disposition)
		}
		// The events are zot2gp's for the transcript, in its order.
		want := piLines(t, p.File, zotArgs...)
		if !reflect.DeepEqual(p.Events, want) {
			t.Errorf("%s: the client received %d events, not zot2gp's %d in order", name, len(p.Events), len(want))
			for i := range max(len(p.Events), len(want)) {
				var g, w any
				if i < len(p.Events) {
					g = p.Events[i]
				}
				if i < len(want) {
					w = want[i]
				}
				if !reflect.DeepEqual(g, w) {
					t.Errorf("first difference, event %d:\n got %v\nwant %v", i, g, w)
					break
				}
			}
		}
		checkPiOrder(t, name, p.Events)
	}

	// uname: the reply's text is the joined deltas; the bash call.
	events := got.Prompts[0].Events
	var deltas strings.Builder
	var final, textEnd string
	var start, callEnd piEvent
	for _, e := range events {
		switch e["type"] {
		case "message_update":
			switch str(e, "assistantMessageEvent", "type") {
			case "text_delta":
				deltas.WriteString(str(e, "assistantMessageEvent", "delta"))
			case "text_end":
				textEnd = str(e, "assistantMessageEvent", "content")
			case "toolcall_end":
				callEnd = e
			}
		case "message_end":
			if str(e, "message", "role") == "assistant" {
				final = str(e, "message", "content", -1, "text")
			}
		case "tool_execution_start":
			start = e
		}
	}
	if final == "" || final != deltas.String() || textEnd != final {
		t.Errorf("uname: the final message's text %q, text_end %q, the joined deltas %q: want all three equal", final, textEnd, deltas.String())
	}
	if !strings.Contains(final, "FreeBSD 15.0-RELEASE-p10") {
		t.Errorf("uname: final text %q", final)
	}
	const callID = "call_00_Xk3rT9vQmB2wLp8sYc1dNf4h"
	if str(start, "toolCallId") != callID || str(start, "toolName") != "bash" || str(start, "args", "command") != "uname -a" {
		t.Errorf("uname: tool_execution_start %v; want toolCallId %s, toolName bash, args.command \"uname -a\"", start, callID)
	}
	if c := dig(callEnd, "assistantMessageEvent", "toolCall"); str(c, "id") != callID || str(c, "name") != "bash" || str(c, "arguments", "command") != "uname -a" {
		t.Errorf("uname: toolcall_end's toolCall %v", c)
	}

	// auth-401: the run ends in a failed assistant message.
	events = got.Prompts[1].Events
	end := events[len(events)-2]
	last := dig(end, "messages", -1)
	if end["type"] != "agent_end" || str(last, "role") != "assistant" || str(last, "stopReason") != "error" ||
		!strings.Contains(str(last, "errorMessage"), "http 401") {
		t.Errorf("auth-401: the run's last message is %v; want an assistant message with stopReason error and the 401 in errorMessage", last)
	}

	// A command zot refuses is pi's failed response: the client's call
	// rejects with zot's error.
	if got.StateError != "not supported by the zot stand-in" {
		t.Errorf("getState() rejected with %q; want the stand-in's error", got.StateError)
	}
	if got.Stderr != "" {
		t.Errorf("the agent process wrote on stderr: %s", got.Stderr)
	}
}

// zot2gpMain is zot2gp's entry point, to run it in the test's process.
var zot2gpMain = func() func([]string, cli.Stdio) int {
	for _, t := range tools.All {
		if t.Name == "zot2gp" {
			return t.Main
		}
	}
	panic("no zot2gp in tools.All")
}()

// piLines runs zot2gp on a file and returns the events it writes (its
// responses aside).
func piLines(t *testing.T, file string, args ...string) []piEvent {
	t.Helper()
	var out, errs bytes.Buffer
	if code := zot2gpMain(append(args, file), cli.Stdio{Out: &out, Err: &errs}); code != 0 {
		t.Fatalf("zot2gp %s: exit %d: %s", file, code, errs.String())
	}
	var events []piEvent
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		var e piEvent
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("zot2gp %s: %v: %s", file, err, l)
		}
		if e["type"] != "response" {
			events = append(events, e)
		}
	}
	return events
}

// checkPiOrder checks one run's events, as pi's client received them, by
// every rule of pi's protocol (picheck): agent_start first, agent_end then
// agent_settled last; turns and messages nested; each tool call started,
// updated and ended in that order within its turn, before its toolResult
// message; texts the joined deltas.
func checkPiOrder(t *testing.T, name string, events []piEvent) {
	t.Helper()
	n := len(events)
	if n < 4 || events[0]["type"] != "agent_start" || events[n-1]["type"] != "agent_settled" {
		t.Errorf("%s: the events do not begin with agent_start and end with agent_settled", name)
		return
	}
	var st picheck.Stream
	for i, e := range events {
		if err := st.Event(e); err != nil {
			t.Errorf("%s: event %d (%v): %v", name, i+1, e["type"], err)
			return
		}
	}
	if err := st.End(); err != nil || st.Runs != 1 {
		t.Errorf("%s: %d runs: %v", name, st.Runs, err)
	}
}

// TestPiTypes: every line zot2gp --format pi writes for the shipped
// transcripts, for the inputs of its golden scripts (the messy ones
// included), for a generated stream and for those streams with lines
// dropped, doubled, swapped or cut (picheck.Mutate) type-checks against pi's
// declarations: each event is assigned to JsonAgentSessionEvent (what pi's
// RPC mode writes: AgentEvent and the session events, message_update
// without its snapshots) and each response to RpcResponse (a response
// carrying zot's own data for a command other than prompt: to pi's
// response with that data unchecked), in a file tsc
// --noEmit checks with the pinned TypeScript. Excess and missing members
// are errors there. A line the declarations refuse is in the file too,
// marked @ts-expect-error, so that a check that passes means something.
func TestPiTypes(t *testing.T) {
	mods := piPackages(t)
	inputs := map[string][]byte{}
	files, _ := filepath.Glob("../../../examples/zot/*.jsonl")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[filepath.Base(f)] = b
	}
	scripts, _ := filepath.Glob("../../sources/zot2gp/testdata/pi-*.txtar")
	for _, f := range scripts {
		a, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, af := range a.Files {
			if strings.HasSuffix(af.Name, ".jsonl") {
				inputs[filepath.Base(f)+":"+af.Name] = af.Data
			}
		}
	}
	if len(files) == 0 || len(scripts) == 0 {
		t.Fatal("no inputs")
	}
	var gen bytes.Buffer
	if err := corpus.Zot(&gen, 64<<10, 13); err != nil {
		t.Fatal(err)
	}
	inputs["generated"] = gen.Bytes()
	// Streams with lines dropped, doubled, swapped or cut: what zot2gp
	// writes when it repairs them is pi's too.
	r := rand.New(rand.NewPCG(21, 7))
	for i := range 40 {
		src := gen.Bytes()
		if i%2 == 0 {
			src = inputs[filepath.Base(files[i/2%len(files)])]
		}
		inputs[fmt.Sprintf("mutated %d", i)] = picheck.Mutate(r, src)
	}

	var ts strings.Builder
	ts.WriteString(`import type { JsonAgentSessionEvent, RpcResponse } from "@earendil-works/pi-coding-agent";
// A successful response whose data is zot's own, passed on as zot gave it:
// what zot answers to a command other than prompt (get_state, ...) is not
// documented, so only the response around the data is pi's to check.
type ZotData = Omit<Extract<RpcResponse, { command: "get_state" }>, "command" | "data"> & { command: string; data: unknown };
`)
	seen := map[string]bool{}
	n := 0
	for name, in := range inputs {
		// In the test's process: a child process of a test built with the
		// race detector takes a second to start.
		var out bytes.Buffer
		zot2gpMain([]string{"--format", "pi", "--ts=stable"}, cli.Stdio{In: bytes.NewReader(in), Out: &out, Err: io.Discard})
		for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if l == "" || seen[l] {
				continue
			}
			seen[l] = true
			n++
			typ := "JsonAgentSessionEvent"
			var r struct {
				Type, Command string
				Data          any
			}
			json.Unmarshal([]byte(l), &r)
			switch {
			case r.Type != "response":
			case r.Data != nil && r.Command != "prompt":
				typ = "ZotData" // zot's own data: see its declaration
			default:
				typ = "RpcResponse"
			}
			fmt.Fprintf(&ts, "// %s\nexport const l%d: %s = %s;\n", name, n, typ, l)
		}
	}
	ts.WriteString("// pi's declarations refuse this one (agent_settled says whether the run was aborted).\n" +
		"// @ts-expect-error\nexport const refused: JsonAgentSessionEvent = {\"type\":\"agent_settled\"};\n")

	dir := t.TempDir()
	conf, err := os.ReadFile("testdata/pi/tsconfig.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"tsconfig.json": conf, "check.ts": []byte(ts.String())} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(mods, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	start := time.Now()
	tsc := exec.CommandContext(ctx, "node", filepath.Join(mods, "typescript", "bin", "tsc"), "-p", filepath.Join(dir, "tsconfig.json"))
	out, err := tsc.CombinedOutput()
	t.Logf("tsc --noEmit: %d lines in %v", n, time.Since(start).Round(time.Millisecond))
	if err != nil {
		lines := strings.Split(ts.String(), "\n")
		var b strings.Builder
		for _, m := range regexp.MustCompile(`check\.ts\((\d+),`).FindAllStringSubmatch(string(out), 20) {
			if i, _ := strconv.Atoi(m[1]); i >= 2 && i <= len(lines) {
				fmt.Fprintf(&b, "%d: %s\n%d: %s\n", i-1, lines[i-2], i, lines[i-1])
			}
		}
		t.Fatalf("tsc: %v\n%s\nthe lines:\n%s", err, out, b.String())
	}
}
