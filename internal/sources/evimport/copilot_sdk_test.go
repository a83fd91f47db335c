package evimport

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The declaration of Copilot CLI's session events, which evimport's
// mapping is held to: session-events.d.ts of @github/copilot-sdk, at a
// pinned version and integrity (npm's sha512 of the tarball). It is
// fetched with npm pack once (nothing is installed, nothing runs) and
// kept in the user's cache directory; without npm and without it cached
// the test is skipped, except in CI (CI set), where it fails.
const (
	copilotSDK          = "@github/copilot-sdk@1.0.14"
	copilotSDKIntegrity = "sha512-knNiXKO7jpp8OrLc8ePGuPssf7CsktJwhv4ukfFXfB2RNgO/59hloSILaEL+mDjwt+QjawrLqgO3HN7Pyud2hA=="
)

// copilotUndeclared are the types Copilot CLI writes that no declaration
// has: session.usage_record (a call's usage), which 1.0.102 writes
// (TestCopilotCLI) though neither the SDK nor the declarations bundled
// with the CLI declare it.
var copilotUndeclared = map[string]bool{"session.usage_record": true}

// TestCopilotMappingAgainstSDK checks that every event type evimport
// reads or passes over on purpose is declared, and persisted (not
// "ephemeral": true, which never reaches the log), and that each member
// evimport reads is declared with the type its decoder expects.
func TestCopilotMappingAgainstSDK(t *testing.T) {
	dts := copilotDeclarations(t)
	events := map[string]string{} // type -> its Data interface
	ephemeral := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?s)export interface (\w+)Event \{\n(.*?)\n\}`).FindAllStringSubmatch(dts, -1) {
		typ := regexp.MustCompile(`\n    type: "([^"]+)";`).FindStringSubmatch("\n" + m[2])
		data := regexp.MustCompile(`\n    data: (\w+);`).FindStringSubmatch("\n" + m[2])
		if typ == nil || data == nil {
			continue
		}
		events[typ[1]] = data[1]
		ephemeral[typ[1]] = strings.Contains(m[2], "\n    ephemeral: true;")
	}
	if len(events) < 100 {
		t.Fatalf("only %d event types found in session-events.d.ts: its form changed", len(events))
	}
	for _, typ := range append(append([]string{}, copilotRead...), copilotSkipped...) {
		switch {
		case copilotUndeclared[typ]:
		case events[typ] == "":
			t.Errorf("%s: not an event type of %s", typ, copilotSDK)
		case ephemeral[typ]:
			t.Errorf("%s: declared ephemeral (never persisted): evimport need not know it", typ)
		}
	}
	for typ, data := range events {
		if !copilotKnown[typ] && !ephemeral[typ] {
			t.Errorf("%s (%s): persisted, but neither read nor passed over on purpose", typ, data)
		}
	}

	members := func(iface string) map[string]string {
		m := regexp.MustCompile(`(?s)export interface ` + iface + ` \{\n(.*?)\n\}`).FindStringSubmatch(dts)
		if m == nil {
			t.Fatalf("interface %s not declared", iface)
		}
		out := map[string]string{}
		for _, l := range regexp.MustCompile(`\n    (\w+)\??: ([^\n]+)`).FindAllStringSubmatch("\n"+m[1], -1) {
			out[l[1]] = strings.TrimSuffix(l[2], ";")
		}
		return out
	}
	// what evimport reads (copilotData, copilotMetric), and the TypeScript
	// type its decoder expects: string, number, boolean, or the interface
	for _, c := range []struct{ iface, member, want string }{
		{"StartEvent", "agentId", "string"}, {"StartEvent", "id", "string"}, {"StartEvent", "timestamp", "string"},
		{"AssistantMessageEvent", "agentId", "string"},
		{events["session.start"], "sessionId", "string"}, {events["session.start"], "copilotVersion", "string"},
		{events["session.start"], "selectedModel", "string"}, {events["session.start"], "context", "WorkingDirectoryContext"},
		{events["session.resume"], "selectedModel", "string"}, {events["session.resume"], "context", "WorkingDirectoryContext"},
		{"WorkingDirectoryContext", "cwd", "string"},
		{events["session.model_change"], "newModel", "string"},
		{events["user.message"], "content", "string"},
		{events["assistant.message"], "content", "string"}, {events["assistant.message"], "model", "string"},
		{events["assistant.message"], "apiCallId", "string"}, {events["assistant.message"], "requestId", "string"},
		{events["assistant.message"], "chunkIndex", "number"}, {events["assistant.message"], "chunkCount", "number"},
		{events["assistant.message"], "toolRequests", "AssistantMessageToolRequest[]"},
		{events["assistant.message"], "outputTokens", "number"}, {events["assistant.message"], "reasoningText", "string"},
		{events["assistant.message"], "parentToolCallId", "string"},
		{"AssistantMessageToolRequest", "toolCallId", "string"}, {"AssistantMessageToolRequest", "name", "string"},
		{"AssistantMessageToolRequest", "arguments", "JsonValue"},
		{events["tool.execution_start"], "toolCallId", "string"}, {events["tool.execution_start"], "toolName", "string"},
		{events["tool.execution_start"], "arguments", "JsonValue"}, {events["tool.execution_start"], "parentToolCallId", "string"},
		{events["tool.execution_complete"], "toolCallId", "string"}, {events["tool.execution_complete"], "success", "boolean"},
		{events["tool.execution_complete"], "result", "ToolExecutionCompleteResult"},
		{events["tool.execution_complete"], "error", "ToolExecutionCompleteError"},
		{"ToolExecutionCompleteResult", "content", "string"}, {"ToolExecutionCompleteError", "message", "string"},
		{events["subagent.started"], "toolCallId", "string"}, {events["subagent.started"], "agentName", "string"},
		{events["subagent.started"], "agentDescription", "string"}, {events["subagent.started"], "model", "string"},
		{events["subagent.started"], "parentId", "string"},
		{events["subagent.completed"], "toolCallId", "string"},
		{events["subagent.failed"], "toolCallId", "string"}, {events["subagent.failed"], "error", "string"},
		{events["session.error"], "message", "string"},
		{events["abort"], "reason", "AbortReason"},
		{events["session.compaction_complete"], "success", "boolean"},
		{events["session.compaction_complete"], "preCompactionTokens", "number"},
		{events["session.compaction_complete"], "summaryContent", "string"},
		{events["session.compaction_complete"], "trigger", "CompactionTrigger"},
		{events["session.shutdown"], "modelMetrics", "{"},
		{"ShutdownModelMetric", "requests", "ShutdownModelMetricRequests"}, {"ShutdownModelMetric", "usage", "ShutdownModelMetricUsage"},
		{"ShutdownModelMetricRequests", "count", "number"}, {"ShutdownModelMetricRequests", "cost", "number"},
		{"ShutdownModelMetricUsage", "inputTokens", "number"}, {"ShutdownModelMetricUsage", "outputTokens", "number"},
		{"ShutdownModelMetricUsage", "cacheReadTokens", "number"}, {"ShutdownModelMetricUsage", "cacheWriteTokens", "number"},
		{"ShutdownModelMetricUsage", "reasoningTokens", "number"},
	} {
		if got, ok := members(c.iface)[c.member]; !ok {
			t.Errorf("%s.%s: not declared", c.iface, c.member)
		} else if got != c.want {
			t.Errorf("%s.%s: declared %s, evimport reads a %s", c.iface, c.member, got, c.want)
		}
	}
	// modelMetrics is a map of ShutdownModelMetric, by model
	if !strings.Contains(dts, "    modelMetrics: {\n        [k: string]: ShutdownModelMetric | undefined;") {
		t.Error("ShutdownData.modelMetrics: not a map of ShutdownModelMetric")
	}
	// the two abort reasons and the error of a subagent are strings,
	// read as such: AbortReason must be a union of strings
	if !regexp.MustCompile(`export type AbortReason = \n(/\*\*.*\*/\n)?"`).MatchString(dts) {
		t.Error("AbortReason: not a union of strings")
	}
}

// copilotDeclarations is session-events.d.ts of the pinned SDK, from the
// cache, else fetched.
func copilotDeclarations(t *testing.T) string {
	skip := func(why string) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	path := filepath.Join(cache, "evtools", "copilot-sdk-"+strings.TrimPrefix(copilotSDK, "@github/copilot-sdk@")+"-session-events.d.ts")
	if data, err := os.ReadFile(path); err == nil {
		return string(data)
	}
	if _, err := exec.LookPath("npm"); err != nil {
		skip("npm is not installed, and " + copilotSDK + " is not in the cache yet (.ci/run installs nodejs and npm from Debian)")
	}
	dir := t.TempDir()
	cmd := exec.Command("npm", "pack", copilotSDK, "--prefer-offline", "--pack-destination", dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		skip(fmt.Sprintf("npm pack %s: %v: %s (offline? the test fetches it once, then runs from the cache)", copilotSDK, err, strings.TrimSpace(stderr.String())))
	}
	tgzs, _ := filepath.Glob(filepath.Join(dir, "*.tgz"))
	if len(tgzs) != 1 {
		t.Fatalf("npm pack %s: %d tarballs", copilotSDK, len(tgzs))
	}
	tgz, err := os.ReadFile(tgzs[0])
	if err != nil {
		t.Fatal(err)
	}
	h := sha512.Sum512(tgz)
	if got := "sha512-" + base64.StdEncoding.EncodeToString(h[:]); got != copilotSDKIntegrity {
		t.Fatalf("npm pack %s: integrity %s, pinned %s", copilotSDK, got, copilotSDKIntegrity)
	}
	data, err := tarFile(tgz, "package/dist/generated/session-events.d.ts")
	if err != nil {
		t.Fatalf("%s: %v", copilotSDK, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
		tmp := path + ".tmp" + fmt.Sprint(os.Getpid())
		if os.WriteFile(tmp, data, 0o644) == nil {
			os.Rename(tmp, path)
		}
	}
	return string(data)
}

// tarFile is the file called name in a gzipped tarball.
func tarFile(tgz []byte, name string) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil, errors.New(name + ": not in the package")
		}
		if err != nil {
			return nil, err
		}
		if h.Name == name {
			return io.ReadAll(tr)
		}
	}
}
