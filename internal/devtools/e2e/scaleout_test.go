package e2e

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/devtools/corpus"
	"github.com/klauspost/compress/zstd"
)

// docs/evsum.md's scale-out recipes, run with the commands exactly as the
// page gives them (read from it), each compared byte for byte with the
// report one evsum pass over the same events writes.
//
// GNU parallel runs for real. The hosts node1 and node2 of the multi-host
// recipes are played by a stand-in ssh (as the cron test's sendmail): it
// runs what parallel sends in a folder of its own per host, so parallel's
// remote path is the real one: its worker wrapper over ssh, the block
// piped through ssh's stdin, files sent with rsync and removed by
// --cleanup. The ":" of a --sshlogin list is this machine, as parallel
// defines it.
//
// The docs cut stdin in 64 MB blocks; the test's events (~300 KB) are one
// block, so each --pipe recipe also runs with "--block 64M" read as
// "--block 48k", nothing else changed: seven blocks, their states merged
// out of order without -k, the two stand-in hosts given some.
func TestParallelRecipes(t *testing.T) {
	need(t, "parallel", "parallel")
	if v, _ := exec.Command("parallel", "--version").Output(); !bytes.Contains(v, []byte("GNU parallel")) {
		t.Fatalf("parallel is not GNU parallel (moreutils' parallel?): the recipes are GNU parallel's:\n%s", v)
	}
	cmds := docCommands(t, "### Over cores and hosts with GNU parallel")
	// The recipes, in the page's order: --pipe over stdin; over files; the
	// same across hosts; files sent to the hosts, states into a file, then
	// merged.
	if len(cmds) != 5 {
		t.Fatalf("docs/evsum.md's GNU parallel section has %d commands, want 5 (the test knows each):\n%s", len(cmds), strings.Join(cmds, "\n"))
	}
	pipe, files, hosts := cmds[0], cmds[1], cmds[2]
	sendFiles := cmds[3] + "\n" + cmds[4]

	small := func(c string) string {
		re := regexp.MustCompile(`--block \S+`)
		if !re.MatchString(c) {
			t.Fatalf("no --block in %q", c)
		}
		return re.ReplaceAllString(c, "--block 48k")
	}
	noK := func(c string) string {
		if !strings.Contains(c, " -k ") {
			t.Fatalf("no -k in %q", c)
		}
		return strings.Replace(c, " -k ", " ", 1)
	}
	localOnly := func(c string) string {
		re := regexp.MustCompile(`--sshlogin \S+`)
		if !re.MatchString(c) {
			t.Fatalf("no --sshlogin in %q", c)
		}
		return re.ReplaceAllString(c, "--sshlogin :")
	}
	// docs/cookbook.md gives the --pipe recipe too, for a file big.jsonl
	// (here the same events), over hosts host1 and host2.
	cookbook := strings.Split(strings.TrimSpace(cookbookRecipe(t, "## A summary spread over cores or hosts")), "\n")
	if len(cookbook) != 2 {
		t.Fatalf("docs/cookbook.md's parallel recipe has %d lines, want 2 (the test knows each):\n%s", len(cookbook), strings.Join(cookbook, "\n"))
	}
	onePass := map[string]string{
		cookbook[0]: "evsum < big.jsonl",
		cookbook[1]: "evsum < big.jsonl",
		pipe:        "evsum --by agent < events.jsonl",
		files:       "evsum --by day --format md logs/*.jsonl.gz",
		hosts:       "evsum --by day --since 7d < events.jsonl",
		sendFiles:   "evsum logs/*.jsonl.zst",
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, c := range []struct {
		name, recipe, onePass string
		blocks                bool // cut into many blocks: count the states
		hosts                 []string
	}{
		{"pipe", pipe, onePass[pipe], false, nil},
		{"pipe, 48k blocks", small(pipe), onePass[pipe], true, nil},
		{"pipe, 48k blocks, no -k", noK(small(pipe)), onePass[pipe], true, nil},
		{"files", files, onePass[files], false, nil},
		{"files, no -k", noK(files), onePass[files], false, nil},
		{"hosts", hosts, onePass[hosts], false, nil},
		{"hosts, 48k blocks", small(hosts), onePass[hosts], true, []string{"node1", "node2"}},
		{"hosts, 48k blocks, --sshlogin :", localOnly(small(hosts)), onePass[hosts], true, nil},
		{"files sent to hosts", sendFiles, onePass[sendFiles], false, []string{"node1", "node2"}},
		{"cookbook", cookbook[0], onePass[cookbook[0]], false, nil},
		{"cookbook, hosts", cookbook[1], onePass[cookbook[1]], false, nil},
		{"cookbook, hosts, 48k blocks", small(cookbook[1]), onePass[cookbook[1]], true, []string{"host1", "host2"}},
	} {
		// parallel spends its time waiting (for a job slot, for a job's
		// end), not working: the recipes run side by side, whatever
		// go test's -parallel.
		wg.Go(func() {
			t.Run(c.name, func(t *testing.T) {
				if strings.Contains(c.recipe, "--transferfile") {
					need(t, "rsync", "rsync") // what parallel sends files with
				}
				dir := scaleoutDir(t)
				want := runRecipe(t, dir, c.onePass)
				if !bytes.Contains(want, []byte(`"runs":`)) && !bytes.Contains(want, []byte("| runs")) {
					t.Fatalf("the one pass reports no runs: the comparison would prove little:\n%s", want)
				}
				os.Remove(filepath.Join(dir, "evsum.log"))
				got := runRecipe(t, dir, c.recipe)
				if !bytes.Equal(got, want) {
					t.Errorf("%s\nwrote:\n%s\none pass (%s) writes:\n%s", c.recipe, got, c.onePass, want)
				}
				calls, _ := os.ReadFile(filepath.Join(dir, "evsum.log"))
				if n := strings.Count(string(calls), "--partial"); c.blocks && n < 5 {
					t.Errorf("%d evsum --partial runs; the 48k blocks should make about seven", n)
				}
				sshLog, _ := os.ReadFile(filepath.Join(dir, "ssh.log"))
				for _, h := range c.hosts {
					if !regexp.MustCompile(`(?m)^` + h + ` .*GNU_Parallel_worker`).Match(sshLog) {
						t.Errorf("parallel ran no job on %s through ssh:\n%s", h, sshLog)
					}
				}
				if !strings.Contains(c.recipe, "--sshlogin") && len(sshLog) > 0 {
					t.Errorf("parallel called ssh:\n%s", sshLog)
				}
				// --cleanup leaves nothing on the hosts; --pipe sent nothing.
				left, _ := filepath.Glob(filepath.Join(dir, "hosts", "*", "*"))
				if len(left) > 0 {
					t.Errorf("left on the hosts: %q", left)
				}
			})
		})
	}
}

// The Hadoop Streaming recipe, as the framework runs it: the input cut
// into splits at line ends, the -mapper on each split (a command line, run
// without a shell, the shipped evsum found in the task's folder), each
// line of its output a key (the whole line: a state line has no tab) with
// an empty value, the keys sorted (sort, as bytes), the -reducer reading
// "key<TAB>value" lines, and its output written by TextOutputFormat, which
// ends a line whose value is empty with a tab. Compared with one pass of
// evsum with the mapper's and reducer's flags.
func TestHadoopStreamingRecipe(t *testing.T) {
	cmds := docCommands(t, "### As Hadoop Streaming mapper and reducer")
	if len(cmds) == 0 || !strings.HasPrefix(cmds[0], "hadoop jar ") {
		t.Fatalf("docs/evsum.md's Hadoop section starts with no hadoop jar command: %q", cmds)
	}
	args := hadoopArgs(t, cmds[0])
	if args["-D mapreduce.job.reduces"] != "1" {
		t.Fatalf("the recipe runs %q reducers; the test knows the contract of one", args["-D mapreduce.job.reduces"])
	}
	if args["-combiner"] != "" {
		t.Fatalf("the recipe has a combiner (%q): the test does not play one", args["-combiner"])
	}
	mapper, reducer := args["-mapper"], args["-reducer"]
	if !strings.HasPrefix(mapper, "evsum --partial") || !strings.HasPrefix(reducer, "evsum --merge") {
		t.Fatalf("mapper %q, reducer %q: not evsum --partial and --merge", mapper, reducer)
	}
	dir := scaleoutDir(t)
	events, err := os.ReadFile(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// -files ships evsum into each task's folder, where streaming finds it.
	task := filepath.Join(dir, "task")
	os.Mkdir(task, 0o755)
	real, err := exec.LookPath("evsum")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(task, "evsum")); err != nil {
		t.Fatal(err)
	}
	streaming := func(command string, stdin []byte) ([]byte, error) {
		argv := strings.Fields(command)
		cmd := exec.Command(filepath.Join(task, argv[0]), argv[1:]...)
		cmd.Dir = task
		cmd.Env = append(os.Environ(), quickExit)
		cmd.Stdin = bytes.NewReader(stdin)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || stderr.Len() > 0 {
			return nil, fmt.Errorf("%s: %v\n%s", command, err, stderr.String())
		}
		return out, nil
	}
	// One pass: the mapper's flags (without --partial) and the reducer's
	// (without --merge).
	oneArgs := append(strings.Fields(strings.TrimPrefix(mapper, "evsum --partial")), strings.Fields(strings.TrimPrefix(reducer, "evsum --merge"))...)
	one, err := exec.Command(real, append(oneArgs, filepath.Join(dir, "events.jsonl"))...).Output()
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	for _, l := range strings.SplitAfter(string(one), "\n") {
		if l != "" {
			want.WriteString(strings.TrimSuffix(l, "\n") + "\t\n")
		}
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, n := range []int{1, 3, 7} {
		wg.Go(func() {
			t.Run(fmt.Sprintf("%d splits", n), func(t *testing.T) {
				// The map tasks run side by side, as on a cluster; their
				// outputs go to the shuffle in the splits' order.
				parts := splits(events, n)
				outs := make([][]byte, len(parts))
				errs := make([]error, len(parts))
				var maps sync.WaitGroup
				for i, split := range parts {
					maps.Go(func() { outs[i], errs[i] = streaming(mapper, split) })
				}
				maps.Wait()
				if err := errors.Join(errs...); err != nil {
					t.Fatal(err)
				}
				mapped := bytes.Join(outs, nil)
				var shuffled bytes.Buffer
				for _, l := range strings.SplitAfter(string(mapped), "\n") {
					if l == "" {
						continue
					}
					key, value, _ := strings.Cut(strings.TrimSuffix(l, "\n"), "\t")
					shuffled.WriteString(key + "\t" + value + "\n")
				}
				sort := exec.Command("sort")
				sort.Env = append(os.Environ(), "LC_ALL=C")
				sort.Stdin = &shuffled
				sorted, err := sort.Output()
				if err != nil {
					t.Fatal(err)
				}
				reduced, err := streaming(reducer, sorted)
				if err != nil {
					t.Fatal(err)
				}
				var got bytes.Buffer
				for _, l := range strings.SplitAfter(string(reduced), "\n") {
					if l == "" {
						continue
					}
					key, value, _ := strings.Cut(strings.TrimSuffix(l, "\n"), "\t")
					got.WriteString(key + "\t" + value + "\n")
				}
				if got.String() != want.String() {
					t.Errorf("the reducer's output:\n%s\none pass (evsum %s) gives:\n%s", got.String(), strings.Join(oneArgs, " "), want.String())
				}
			})
		})
	}
}

// splits cuts data into n pieces of about the same size, each line in the
// piece its first byte falls in, as Hadoop's line reader assigns them.
func splits(data []byte, n int) [][]byte {
	var out [][]byte
	start := 0
	for i := 1; i <= n; i++ {
		end := len(data)
		if b := i * len(data) / n; i < n && b <= start {
			end = start // the previous piece's last line reached past b
		} else if i < n {
			// The line that holds byte b-1 ends this piece.
			if k := bytes.IndexByte(data[b-1:], '\n'); k >= 0 {
				end = b + k
			}
		}
		if end > start {
			out = append(out, data[start:end])
		}
		start = end
	}
	return out
}

// hadoopArgs reads a hadoop jar command's options: "-D name" for each
// -D name=value, the others by their name.
func hadoopArgs(t *testing.T, command string) map[string]string {
	t.Helper()
	out := map[string]string{}
	words := shellWords(t, command)
	for i := 3; i < len(words); i++ { // after hadoop jar JAR
		if !strings.HasPrefix(words[i], "-") || i+1 == len(words) {
			t.Fatalf("hadoop option %q without a value in %q", words[i], command)
		}
		name, value := words[i], words[i+1]
		if name == "-D" {
			var ok bool
			name, value, ok = strings.Cut(value, "=")
			if !ok {
				t.Fatalf("-D %s: no =", value)
			}
			name = "-D " + name
		}
		out[name] = value
		i++
	}
	return out
}

// shellWords splits a command as sh does, for the quoting the recipes use
// ('...' and "...", no escapes inside).
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		t.Fatalf("unclosed quote in %q", s)
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

// docCommands are the shell commands of the code blocks of
// docs/evsum.md's section heading (up to the next heading): continuation
// lines joined, comment lines left out.
func docCommands(t *testing.T, heading string) []string {
	t.Helper()
	doc, err := os.ReadFile("../../../docs/evsum.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("docs/evsum.md has no %q", heading)
	}
	var cmds []string
	cont := false
	for _, l := range strings.Split(after, "\n") {
		if strings.HasPrefix(l, "#") {
			break
		}
		if !strings.HasPrefix(l, "    ") {
			continue
		}
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "#") {
			continue
		}
		if cont {
			cmds[len(cmds)-1] += " " + strings.TrimSuffix(l, `\`)
		} else {
			cmds = append(cmds, strings.TrimSuffix(l, `\`))
		}
		cont = strings.HasSuffix(l, `\`)
		cmds[len(cmds)-1] = strings.Join(strings.Fields(cmds[len(cmds)-1]), " ")
	}
	if len(cmds) == 0 {
		t.Fatalf("no command under %q", heading)
	}
	return cmds
}

// scaleoutDir is where the recipes run: events.jsonl, the same events as
// compressed files in logs/, the stand-in ssh, and evsum logging each run.
//
// The events are two generated logs: one 8 to 12 days old, one of the
// last 6 days, so that --since 7d keeps one and a run started a second
// apart (the one pass) draws the same line.
func scaleoutDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	now := float64(time.Now().Unix())
	const day = 86400
	var events []byte
	for i, span := range [][2]float64{{now - 12*day, now - 8*day}, {now - 6*day, now - 3600}} {
		var gen bytes.Buffer
		if err := corpus.Envelope(&gen, 150<<10, uint64(20+i)); err != nil {
			t.Fatal(err)
		}
		events = append(events, stretch(gen.Bytes(), span[0], span[1])...)
	}
	for _, name := range []string{"events.jsonl", "big.jsonl"} {
		if err := os.WriteFile(filepath.Join(dir, name), events, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// logs/: the events in four files, cut anywhere (a run may be in two),
	// each as .jsonl.gz and .jsonl.zst.
	os.Mkdir(filepath.Join(dir, "logs"), 0o755)
	for i, part := range splits(events, 4) {
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(part)
		zw.Close()
		enc, _ := zstd.NewWriter(nil)
		zst := enc.EncodeAll(part, nil)
		name := filepath.Join(dir, "logs", fmt.Sprintf("part%d.jsonl", i))
		if os.WriteFile(name+".gz", gz.Bytes(), 0o644) != nil || os.WriteFile(name+".zst", zst, 0o644) != nil {
			t.Fatal("writing logs/")
		}
	}
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	os.Mkdir(filepath.Join(dir, "hosts"), 0o755)
	real, err := exec.LookPath("evsum")
	if err != nil {
		t.Fatal(err)
	}
	// evsum, logging its arguments: how many states a recipe made.
	os.WriteFile(filepath.Join(bin, "evsum"), []byte(fmt.Sprintf("#!/bin/sh\necho \"$*\" >> %q\nexec %q \"$@\"\n", filepath.Join(dir, "evsum.log"), real)), 0o755)
	// ssh HOST [--] COMMAND...: logs it, then runs COMMAND with bash (a
	// login shell) in the host's own folder, as sshd would in its home.
	// sshd sets SHELL to the user's login shell, and parallel's remote
	// wrapper runs each job with $SHELL: without it the job fails
	// silently (a CI runner may start the tests with no SHELL at all).
	os.WriteFile(filepath.Join(bin, "ssh"), []byte(`#!/usr/bin/env bash
printf '%s\n' "$*" >> "$SCALEOUT_DIR/ssh.log"
while [ $# -gt 0 ]; do
	case $1 in
	-[bcDEeFIiJLlmOopQRSWw]) shift 2 ;;
	-*) shift ;;
	*) break ;;
	esac
done
host=$1
shift
[ "${1:-}" != -- ] || shift
SHELL=$(getent passwd "$(id -u)" | cut -d: -f7)
export SHELL=${SHELL:-/bin/sh}
mkdir -p "$SCALEOUT_DIR/hosts/$host"
cd "$SCALEOUT_DIR/hosts/$host" && exec bash -c "$*"
`), 0o755)
	return dir
}

// runRecipe runs a recipe with bash -o pipefail in dir, with the stand-ins
// first on PATH, and returns its stdout (or, when it wrote states.jsonl and
// nothing, the report of its last line).
func runRecipe(t *testing.T, dir, recipe string) []byte {
	t.Helper()
	cmd := exec.Command("bash", "-o", "pipefail", "-c", recipe)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"PATH="+filepath.Join(dir, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
		"SCALEOUT_DIR="+dir,
		"HOME="+dir, // parallel keeps its files in ~/.parallel
		quickExit)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("%s: %v\n%s", recipe, err, stderr.String())
	}
	return out
}

// quickExit spares each tool run by a recipe the second a race-built
// process sleeps before it exits (GORACE atexit_sleep_ms, 1000 by
// default, for late reports from other goroutines): a recipe runs dozens.
var quickExit = "GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0")

// stretch moves the events' times onto [from, to], keeping their order
// and proportions.
func stretch(data []byte, from, to float64) []byte {
	ts := regexp.MustCompile(`"ts":([0-9.]+)`)
	all := ts.FindAllSubmatch(data, -1)
	first, _ := strconv.ParseFloat(string(all[0][1]), 64)
	last, _ := strconv.ParseFloat(string(all[len(all)-1][1]), 64)
	return ts.ReplaceAllFunc(data, func(m []byte) []byte {
		v, _ := strconv.ParseFloat(string(m[len(`"ts":`):]), 64)
		return fmt.Appendf(nil, `"ts":%.3f`, from+(v-first)*(to-from)/(last-first))
	})
}
