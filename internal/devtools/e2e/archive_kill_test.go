package e2e

import (
	"bytes"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/devtools/corpus"
	"github.com/evtools/evtools/pkg/archive"
	"github.com/klauspost/compress/zstd"
)

// agentLogs writes generated sessions of every agent the generator knows
// under src and returns their files, relative to src, by session: a
// session's files are those under one folder of its own (a Claude Code
// session with its subagents) or one file.
func agentLogs(t *testing.T, src string, size int64) map[string][]string {
	t.Helper()
	for i, kind := range corpus.AgentKinds {
		if err := corpus.Agents(src, kind, size, uint64(7+i)); err != nil {
			t.Fatal(err)
		}
	}
	sessions := map[string][]string{}
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(src, p)
			key := strings.TrimSuffix(filepath.ToSlash(rel), ".jsonl")
			if before, _, ok := strings.Cut(key, "/subagents/"); ok {
				key = before // a Claude Code subagent's: its session's
			}
			if strings.HasPrefix(key, ".codex/") {
				// a rollout and the agents it spawned, which a pass joins:
				// those of a day, written together
				key = filepath.ToSlash(filepath.Dir(rel))
			}
			sessions[key] = append(sessions[key], rel)
		}
		return nil
	})
	return sessions
}

// agentWorld is the logs as agents write them, step by step, from the
// whole logs in src: into home, and into gone once their agent deletes
// them.
type agentWorld struct {
	t                *testing.T
	rng              *rand.Rand
	src, home, gone  string
	sessions         map[string][]string
	keys             []string
	copied           map[string]int // bytes of each file written to home
	deleted, rotated map[string]bool
}

// left are the sessions not wholly written yet, nor deleted.
func (w *agentWorld) left() []string {
	var out []string
	for _, k := range w.keys {
		if w.deleted[k] {
			continue
		}
		for _, f := range w.sessions[k] {
			fi, _ := os.Stat(filepath.Join(w.src, f))
			if w.copied[f] < int(fi.Size()) {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

// grow writes more of a random session: a session of one file grows by
// a random number of bytes, a line often cut mid-way, appended to as an
// agent appends; one of several files (subagents) comes whole.
func (w *agentWorld) grow() bool {
	left := w.left()
	if len(left) == 0 {
		return false
	}
	group := w.sessions[left[w.rng.IntN(len(left))]]
	for _, f := range group {
		data := w.read(f)
		to := len(data)
		if len(group) == 1 && w.rng.IntN(3) > 0 {
			to = w.copied[f] + w.rng.IntN(min(len(data)-w.copied[f], 16<<10)+1)
		}
		w.appendTo(f, data[w.copied[f]:to])
		w.copied[f] = to
	}
	return true
}

func (w *agentWorld) read(f string) []byte {
	data, err := os.ReadFile(filepath.Join(w.src, f))
	if err != nil {
		w.t.Fatal(err)
	}
	return data
}

func (w *agentWorld) appendTo(f string, data []byte) {
	dst := filepath.Join(w.home, f)
	os.MkdirAll(filepath.Dir(dst), 0o755)
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		w.t.Fatal(err)
	}
	out.Write(data)
	out.Close()
}

// written are the files of home written so far, not deleted.
func (w *agentWorld) written() []string {
	var out []string
	for _, k := range w.keys {
		for _, f := range w.sessions[k] {
			if w.copied[f] > 0 && !w.deleted[k] {
				out = append(out, f)
			}
		}
	}
	return out
}

// rewrite writes a file anew, under a new inode, with what it held (as
// Gemini CLI rewrites its .json, or an editor saves), or truncates it
// and writes it again, as a log rewritten in place.
func (w *agentWorld) rewrite() {
	files := w.written()
	if len(files) == 0 {
		return
	}
	f := files[w.rng.IntN(len(files))]
	dst := filepath.Join(w.home, f)
	data := w.read(f)[:w.copied[f]]
	if w.rng.IntN(2) == 0 {
		tmp := dst + ".tmp"
		os.WriteFile(tmp, data, 0o644)
		os.Rename(tmp, dst)
		return
	}
	os.WriteFile(dst, nil, 0o644)
	os.WriteFile(dst, data, 0o644)
}

// rotate moves a Claude Code session's file aside, as a log rotation
// does, under another session file name of its folder; the agent goes
// on in a new file under the old name (grow appends there).
func (w *agentWorld) rotate() {
	for _, f := range w.written() {
		if !strings.Contains(f, ".claude") || len(w.sessions[w.keyOf(f)]) != 1 || w.rotated[f] {
			continue
		}
		dst := filepath.Join(w.home, f)
		aside := strings.TrimSuffix(dst, ".jsonl") + "-rotated.jsonl"
		if err := os.Rename(dst, aside); err != nil {
			w.t.Fatal(err)
		}
		w.rotated[f] = true
		return
	}
}

func (w *agentWorld) keyOf(f string) string {
	for k, fs := range w.sessions {
		if slices.Contains(fs, f) {
			return k
		}
	}
	return ""
}

// remove deletes a session's files, as Claude Code deletes those older
// than cleanupPeriodDays: only a session its agent is done with, aged
// first and synced (sync) so that the archive holds all of it; its files
// are kept in gone, for the pass the archive is held to.
func (w *agentWorld) remove(sync func()) {
	files := w.written()
	if len(files) == 0 {
		return
	}
	k := w.keyOf(files[w.rng.IntN(len(files))])
	var paths []string
	for _, f := range w.sessions[k] {
		for _, p := range []string{f, strings.TrimSuffix(f, ".jsonl") + "-rotated.jsonl"} {
			if _, err := os.Stat(filepath.Join(w.home, p)); err == nil {
				paths = append(paths, p)
			}
		}
	}
	for _, p := range paths {
		old := time.Now().Add(-2 * time.Hour)
		os.Chtimes(filepath.Join(w.home, p), old, old)
	}
	sync()
	for _, p := range paths {
		dst := filepath.Join(w.gone, p)
		os.MkdirAll(filepath.Dir(dst), 0o755)
		if err := os.Rename(filepath.Join(w.home, p), dst); err != nil {
			w.t.Fatal(err)
		}
	}
	w.deleted[k] = true
}

// syncArchive runs evimport --archive into arch; killAfter > 0 SIGKILLs
// it that long after its start. It reports whether it was killed.
func syncArchive(t *testing.T, arch, home string, killAfter time.Duration, extra ...string) bool {
	t.Helper()
	cmd := exec.Command("evimport", append([]string{"--archive=" + arch, "--host", "h1", home}, extra...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if killAfter > 0 {
		timer := time.AfterFunc(killAfter, func() { cmd.Process.Signal(syscall.SIGKILL) })
		defer timer.Stop()
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok && ee.Sys().(syscall.WaitStatus).Signaled() {
		return true
	}
	// bad lines (a rotated file's cut line) say so with status 1; the
	// sync is done
	if err != nil && cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("evimport --archive: %v\n%s", err, stderr.String())
	}
	return false
}

// archived is every event of the archive's hosts, each line as written.
func archived(t *testing.T, root string) []string {
	t.Helper()
	hosts, err := archive.Find(root, func(p string, err error) { t.Fatalf("%s: %v", p, err) })
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, h := range hosts {
		for _, seg := range h.Manifest.Segments {
			f, err := os.Open(h.Path(seg))
			if err != nil {
				t.Fatal(err)
			}
			z, _ := zstd.NewReader(f)
			data, err := io.ReadAll(z)
			z.Close()
			f.Close()
			if err != nil {
				t.Fatalf("%s: %v", h.Path(seg), err)
			}
			if n := int64(bytes.Count(data, []byte("\n"))); n != seg.Events {
				t.Fatalf("%s: %d events, the manifest says %d", seg.Name, n, seg.Events)
			}
			lines = append(lines, sortedLines(data)...)
		}
	}
	slices.Sort(lines)
	return lines
}

// The archive is what one pass over the logs writes, each event once,
// whatever the agents did to their logs between syncs (lines appended
// cut mid-way, files rewritten, truncated, rotated, sessions deleted)
// and whatever moment a sync was SIGKILLed at: the events of the
// archive, after a last sync once the logs are settled, are those of
// evimport over the final logs and the deleted ones, with the same seq.
func TestArchiveKilledSyncs(t *testing.T) {
	if raceEnabled {
		// Each child takes seconds under the race detector, and the
		// kills all land before it has read anything; make test runs it
		// without -race.
		t.Skip("kills processes at timed moments: run without -race")
	}
	dir := t.TempDir()
	t.Setenv("EVTOOLS_CACHE_DIR", filepath.Join(dir, "cache")) // evsum's, not the user's
	w := &agentWorld{t: t, rng: rand.New(rand.NewPCG(3, 4)), src: filepath.Join(dir, "src"), home: filepath.Join(dir, "home"),
		gone: filepath.Join(dir, "gone"), copied: map[string]int{}, deleted: map[string]bool{}, rotated: map[string]bool{}}
	w.sessions = agentLogs(t, w.src, 1<<20)
	for k := range w.sessions {
		w.keys = append(w.keys, k)
	}
	slices.Sort(w.keys)
	os.MkdirAll(w.home, 0o755)
	os.MkdirAll(w.gone, 0o755)
	arch := filepath.Join(dir, "arch")

	wantKills := 500
	if testing.Short() {
		wantKills = 40
	}
	kills, syncs := 0, 0
	clean := func() {
		for syncArchive(t, arch, w.home, 0) {
		}
		syncs++
	}
	// how long a sync takes here, so that kills land all through one
	start := time.Now()
	clean()
	span := max(time.Since(start), 5*time.Millisecond)
	for kills < wantKills {
		switch r := w.rng.IntN(20); {
		case r < 14:
			w.grow()
		case r < 16:
			w.rewrite()
		case r < 17:
			w.rotate()
		case r < 18 && 2*len(w.deleted) < len(w.keys)-1:
			w.remove(clean)
		}
		if syncArchive(t, arch, w.home, time.Duration(w.rng.Int64N(int64(span*3/2)))+time.Millisecond) {
			kills++
		}
		syncs++
	}
	for w.grow() {
	}
	old := time.Now().Add(-2 * time.Hour)
	filepath.WalkDir(w.home, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			os.Chtimes(p, old, old)
		}
		return nil
	})
	clean()
	t.Logf("%d syncs, %d killed; %d sessions, %d deleted", syncs, kills, len(w.keys), len(w.deleted))

	got := archived(t, arch)
	pass, err := exec.Command("evimport", "--host", "h1", w.home, w.gone).Output()
	if err != nil && len(pass) == 0 {
		t.Fatal(err)
	}
	want := sortedLines(pass)
	if !slices.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Fatalf("the archive holds %d events, one pass writes %d; first difference:\narchive: %.300s\npass:    %.300s",
			len(got), len(want), at(got, i), at(want, i))
	}
	// and so the report over the archive is the report of one pass, with
	// and without evsum's cache
	passFile := filepath.Join(dir, "pass.jsonl")
	if err := os.WriteFile(passFile, pass, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"csv", "json"} {
		want := tool(t, "evsum", "--by", "day", "--format", format, passFile)
		for _, cache := range []string{"--no-cache", "--format=" + format} {
			if got := tool(t, "evsum", "--by", "day", "--format", format, cache, arch); got != want {
				t.Errorf("evsum --by day --format %s %s over the archive:\n%s\none pass:\n%s", format, cache, got, want)
			}
		}
	}
	// Nothing left behind: the host's folder holds what its manifest names.
	hosts, _ := archive.Find(arch, func(string, error) {})
	entries, _ := os.ReadDir(hosts[0].Dir)
	if n := len(entries); n != len(hosts[0].Manifest.Segments)+3 { // the manifest, the state, the lock
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("the host's folder holds %d files for %d segments: %v", n, len(hosts[0].Manifest.Segments), names)
	}
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(none)"
}

// Two syncs started at once do not both write the same events: the
// second finds the lock held and writes nothing (status 3), or runs
// after the first and writes what is new.
func TestArchiveTwoSyncsAtOnce(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	agentLogs(t, src, 100<<10)
	old := time.Now().Add(-2 * time.Hour)
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			os.Chtimes(p, old, old)
		}
		return nil
	})
	busy := 0
	for round := range 4 {
		arch := filepath.Join(dir, "arch", string(rune('a'+round)))
		var wg sync.WaitGroup
		codes := make([]int, 2)
		for i := range 2 {
			wg.Go(func() {
				cmd := exec.Command("evimport", "--archive="+arch, "--host", "h1", src)
				cmd.Run()
				codes[i] = cmd.ProcessState.ExitCode()
			})
		}
		wg.Wait()
		for _, c := range codes {
			switch c {
			case 0:
			case 3:
				busy++
			default:
				t.Fatalf("round %d: status %d", round, c)
			}
		}
		got := archived(t, arch)
		pass, _ := exec.Command("evimport", "--host", "h1", src).Output()
		if !slices.Equal(got, sortedLines(pass)) {
			t.Fatalf("round %d: the archive holds %d events, one pass writes %d", round, len(got), len(sortedLines(pass)))
		}
	}
	t.Logf("%d of 4 second syncs found the lock held", busy)
}

func sortedLines(b []byte) []string {
	ls := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(ls) == 1 && ls[0] == "" {
		return nil
	}
	slices.Sort(ls)
	return ls
}
