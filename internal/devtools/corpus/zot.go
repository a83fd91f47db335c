package corpus

import (
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/evtools/evtools/internal/core/jsontext"
)

// zotEpoch is when the generated zot sessions start: the day of the
// recorded runs in examples/zot.
var zotEpoch = time.Date(2026, 6, 21, 8, 0, 0, 0, time.UTC).UnixMilli()

// Zot writes a zot RPC stream (the event shapes of the recorded runs in
// examples/zot) of at least n bytes, whole prompt runs only, fully determined by seed.
//
// Each run is a prompt's events from its `response` ack to `done`: one to
// four turns, tool use (bash, read, edit, grep, write) before a text reply,
// now and then a failed run (`turn_end` stop error, then `error`), a tool
// error, a long tool output of 20-100 KB, or a prompt refused with
// `response` success:false (that run is the single line). Keys are sorted
// as zot writes them.
func Zot(w io.Writer, n int64, seed uint64) error {
	g := &zotGen{gen: newGen(w, seed, zotEpoch)}
	return g.writeRuns(n, g.run)
}

type zotGen struct {
	gen
	prompt int   // the last prompt id
	cum    usage // totals of the current run
	ctx    int   // tokens in the model's context
}

type usage struct {
	cacheRead, cacheWrite, input, output int64
	cost                                 int64 // in 1e-8 USD
}

// kv is one argument of a tool call: a string, or a number when num is set.
type kv struct {
	k, s string
	n    int
	num  bool
}

type toolCall struct {
	id, name string
	args     []kv
	output   string
	isError  bool
	spell    spelling // how the result and progress text are written
	progress bool
}

// end ends an event with its type: zot sorts an event's keys, and
// "type" comes last in every event the generator writes.
func (g *zotGen) end(typ string) {
	g.raw(`,"type":"`)
	g.raw(typ)
	g.raw(`"}`)
	g.endLine()
}

func (g *zotGen) time() {
	g.b = append(g.b, '"')
	g.b = time.UnixMilli(g.ms).UTC().AppendFormat(g.b, "2006-01-02T15:04:05.000Z07:00")
	g.b = append(g.b, '"')
}

func (g *zotGen) run() {
	g.prompt++
	g.tick(20_000, 900_000)
	id := strconv.Itoa(g.prompt)
	if g.r.oneIn(60) {
		g.raw(`{"command":"prompt","error":`)
		g.str(pick(&g.r, []string{
			"a prompt is already running",
			"session is closing",
			"invalid message: empty prompt",
		}))
		g.strAt("id", id)
		g.raw(`,"success":false,"type":"response"}`)
		g.endLine()
		return
	}
	g.raw(`{"command":"prompt","data":{"started":true},"id":`)
	g.str(id)
	g.raw(`,"success":true,"type":"response"}`)
	g.endLine()
	g.tick(1, 20)
	g.raw(`{"content":[{"text":`)
	g.str(pick(&g.r, prompts))
	g.raw(`,"type":"text"}],"time":`)
	g.time()
	g.end("user_message")

	g.cum = usage{}
	g.ctx = g.r.between(700, 4000)
	turns := g.r.between(1, 4)
	failAt := 0 // the turn that fails, if any
	switch {
	case g.r.oneIn(30):
		failAt = 1
	case g.r.oneIn(30):
		failAt = g.r.between(1, turns)
	}
	for step := 1; step <= turns; step++ {
		g.tick(5, 50)
		g.raw(`{"step":`)
		g.int(int64(step))
		g.end("turn_start")
		if step == failAt {
			g.fail(step == 1 && g.r.percent(60))
			return
		}
		if step < turns {
			g.toolTurn()
		} else {
			g.textTurn()
		}
	}
	g.tick(1, 10)
	g.line(`{"type":"done"}`)
}

var zotErrors = []string{
	"deepseek: http 429: {\"error\":{\"message\":\"Rate limit reached for requests\",\"type\":\"rate_limit_error\"}}",
	"deepseek: http 503: service unavailable",
	"deepseek: stream: unexpected EOF",
	"deepseek: context length exceeded (131072 tokens)",
	"context deadline exceeded",
}

// fail ends the run as the recorded HTTP 401 run does (examples/zot/
// auth-401.jsonl): turn_end stop error, error, done. early is that run's
// case, a request rejected before any output.
func (g *zotGen) fail(early bool) {
	msg := "deepseek: http 401: {\"error\":{\"message\":\"Authentication Fails, Your api key: ****" +
		"abcd is invalid\",\"type\":\"authentication_error\",\"code\":\"invalid_request_error\"}}"
	if !early {
		msg = pick(&g.r, zotErrors)
		g.tick(200, 3000)
		g.line(`{"type":"assistant_start"}`)
		g.deltas(sentenceText(&g.r, 1), g.r.between(1, 6))
	}
	g.tick(100, 2000)
	g.raw(`{"error":`)
	g.str(msg)
	g.raw(`,"stop":"error","type":"turn_end"}`)
	g.endLine()
	g.raw(`{"message":`)
	g.str(msg)
	g.end("error")
	g.line(`{"type":"done"}`)
}

// deltas writes text as text_delta events of one to three words each; max
// (if positive) stops early, as a stream cut short does.
func (g *zotGen) deltas(text string, max int) {
	count := 0
	for len(text) > 0 {
		words := g.r.between(1, 3)
		end := 0
		for w := 0; w < words && end < len(text); w++ {
			// a word is its leading spaces and what follows up to the next space
			for end < len(text) && text[end] == ' ' {
				end++
			}
			for end < len(text) && text[end] != ' ' {
				end++
			}
		}
		g.tick(10, 60)
		g.raw(`{"delta":`)
		g.str(text[:end])
		g.end("text_delta")
		text = text[end:]
		count++
		if max > 0 && count >= max {
			return
		}
	}
}

func (g *zotGen) textTurn() {
	g.tick(300, 4000)
	g.line(`{"type":"assistant_start"}`)
	text := sentenceText(&g.r, g.r.between(1, 5))
	g.deltas(text, 0)
	g.usage(len(text) / 4)
	g.raw(`{"content":[{"text":`)
	g.str(text)
	g.raw(`,"type":"text"}],"time":`)
	g.time()
	g.end("assistant_message")
	g.line(`{"stop":"end","type":"turn_end"}`)
}

func (g *zotGen) usage(outTokens int) {
	u := usage{input: int64(g.ctx), output: int64(outTokens + g.r.between(5, 40))}
	u.cacheRead = int64(g.ctx*g.r.between(50, 95)/100) &^ 127
	if g.r.oneIn(3) {
		u.cacheWrite = (u.input - u.cacheRead) &^ 63
	}
	// DeepSeek-like prices per token, in 1e-8 USD
	u.cost = (u.input-u.cacheRead)*27 + u.cacheRead*7 + u.output*110
	g.cum.input += u.input
	g.cum.output += u.output
	g.cum.cacheRead += u.cacheRead
	g.cum.cacheWrite += u.cacheWrite
	g.cum.cost += u.cost
	g.ctx += int(u.output)
	g.tick(5, 40)
	g.raw(`{"cache_read":`)
	g.int(u.cacheRead)
	g.intAt("cache_write", u.cacheWrite)
	g.raw(`,"cost_usd":`)
	g.fixed(u.cost, 8)
	g.raw(`,"cumulative":{"cache_read":`)
	g.int(g.cum.cacheRead)
	g.intAt("cache_write", g.cum.cacheWrite)
	g.raw(`,"cost_usd":`)
	g.fixed(g.cum.cost, 8)
	g.intAt("input", g.cum.input)
	g.intAt("output", g.cum.output)
	g.raw(`},"input":`)
	g.int(u.input)
	g.intAt("output", u.output)
	g.end("usage")
}

const idChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

func (g *zotGen) callID(i int) string {
	var b [32]byte
	n := copy(b[:], "call_0")
	b[n] = byte('0' + i)
	n++
	b[n] = '_'
	n++
	for ; n < len(b); n++ {
		b[n] = idChars[g.r.intn(len(idChars))]
	}
	return string(b[:])
}

func (g *zotGen) toolTurn() {
	g.tick(300, 5000)
	g.line(`{"type":"assistant_start"}`)
	calls := make([]toolCall, 1, 2)
	if g.r.oneIn(7) {
		calls = calls[:2]
	}
	argTokens := 0
	for i := range calls {
		c := &calls[i]
		g.makeCall(c, i)
		g.raw(`{"id":`)
		g.str(c.id)
		g.strAt("name", c.name)
		g.end("tool_use_start")
		text := argsText(c.args)
		argTokens += len(text) / 4
		g.argDeltas(c.id, text)
		g.raw(`{"id":`)
		g.str(c.id)
		g.end("tool_use_end")
	}
	g.usage(argTokens)
	g.raw(`{"content":[`)
	for i := range calls {
		if i > 0 {
			g.raw(",")
		}
		g.callObject(&calls[i])
	}
	g.raw(`],"time":`)
	g.time()
	g.end("assistant_message")
	for i := range calls {
		g.callObject(&calls[i])
		g.endLine()
	}
	g.line(`{"stop":"tool_use","type":"turn_end"}`)
	for i := range calls {
		c := &calls[i]
		if c.progress {
			g.progress(c)
		}
		g.tick(20, 3000)
		g.raw(`{"content":[{"text":`)
		g.foreign(c.output, c.spell)
		g.raw(`,"type":"text"}],"id":`)
		g.str(c.id)
		g.raw(`,"is_error":`)
		g.bool(c.isError)
		g.end("tool_result")
		g.ctx += len(c.output) / 4
	}
}

// progress streams a bash output in chunks of whole lines, after the "$ cmd"
// line that only the result carries.
func (g *zotGen) progress(c *toolCall) {
	text := c.output[strings.IndexByte(c.output, '\n')+1:]
	for len(text) > 0 {
		end := 0
		for k := g.r.between(1, 40); k > 0 && end < len(text); k-- {
			nl := strings.IndexByte(text[end:], '\n')
			if nl < 0 {
				end = len(text)
				break
			}
			end += nl + 1
		}
		g.tick(5, 400)
		g.raw(`{"id":`)
		g.str(c.id)
		g.raw(`,"text":`)
		g.foreign(text[:end], spellRaw)
		g.end("tool_progress")
		text = text[end:]
	}
}

// callObject writes a tool_call object, the content block and the event
// being the same bytes; args keys are sorted as zot writes them.
func (g *zotGen) callObject(c *toolCall) {
	g.raw(`{"args":{`)
	sorted := slices.Clone(c.args)
	slices.SortStableFunc(sorted, func(a, b kv) int { return strings.Compare(a.k, b.k) })
	for i, a := range sorted {
		if i > 0 {
			g.raw(",")
		}
		g.str(a.k)
		g.raw(":")
		if a.num {
			g.int(int64(a.n))
		} else {
			g.str(a.s)
		}
	}
	g.raw(`},"id":`)
	g.str(c.id)
	g.strAt("name", c.name)
	g.raw(`,"type":"tool_call"}`)
}

// argsText is the arguments as the model streams them: its own key order,
// a space after each colon and comma, as in the recorded uname run.
func argsText(args []kv) string {
	b := []byte{'{'}
	for i, a := range args {
		if i > 0 {
			b = append(b, ',', ' ')
		}
		b = jsontext.AppendString(b, a.k)
		b = append(b, ':', ' ')
		if a.num {
			b = strconv.AppendInt(b, int64(a.n), 10)
		} else {
			b = jsontext.AppendString(b, a.s)
		}
	}
	return string(append(b, '}'))
}

// argDeltas streams text as the recorded uname run does: "{", then pieces
// of a few characters (never splitting a UTF-8 sequence), then "}".
func (g *zotGen) argDeltas(id, text string) {
	pieces := []string{"{"}
	body := text[1 : len(text)-1]
	for len(body) > 0 {
		end := g.r.between(1, 24)
		if end >= len(body) {
			end = len(body)
		}
		for end < len(body) && !utf8.RuneStart(body[end]) {
			end++
		}
		pieces = append(pieces, body[:end])
		body = body[end:]
	}
	pieces = append(pieces, "}")
	for _, p := range pieces {
		g.tick(2, 30)
		g.raw(`{"delta":`)
		g.str(p)
		g.strAt("id", id)
		g.end("tool_use_args")
	}
}

// makeCall picks a tool, its arguments and what it will output.
func (g *zotGen) makeCall(c *toolCall, i int) {
	r := &g.r
	c.id = g.callID(i)
	var sb strings.Builder
	switch r.intn(10) {
	case 0, 1, 2, 3: // bash is what agents call most
		bashCall(r, c, &sb)
	case 4, 5, 6:
		readCall(r, c, &sb)
	case 7:
		editCall(r, c, &sb)
	case 8:
		grepCall(r, c, &sb)
	default:
		writeCall(r, c, &sb)
	}
	if r.oneIn(40) {
		// a raw U+2028 inside a string must never split a record
		sb.WriteString("release notes:\u2028• faster export\u2028• umlauts fixed\n")
	}
	c.output = sb.String()
	if r.oneIn(15) {
		c.spell = spellASCII
	}
}

// bashCall makes a shell command, its output, and sometimes its failure.
func bashCall(r *rng, c *toolCall, sb *strings.Builder) {
	c.name = "bash"
	cmd := pick(r, bashCommands)
	long := r.oneIn(60)
	if long {
		cmd = pick(r, []string{"go test -v -count=1 ./...", "cat logs/server.log", "git log -p -n 40"})
	}
	c.args = []kv{{k: "command", s: cmd}}
	sb.WriteString("$ ")
	sb.WriteString(cmd)
	sb.WriteByte('\n')
	switch {
	case long:
		size := r.between(20<<10, 100<<10)
		for sb.Len() < size {
			lines(r, sb, outputLines, 8)
			numbered(r, sb, r.between(1, 900), 4)
		}
	case cmd == "uname -a":
		sb.WriteString("FreeBSD osa.smilepowered.org 15.0-RELEASE-p10 FreeBSD 15.0-RELEASE-p10 GENERIC amd64\n")
	default:
		lines(r, sb, outputLines, r.between(1, 14))
	}
	if r.oneIn(8) {
		c.isError = true
		sb.WriteString("exit status ")
		sb.WriteString(strconv.Itoa(r.between(1, 2)))
		sb.WriteByte('\n')
	}
	c.progress = r.percent(70)
}

// readCall makes a file read, whole or from an offset.
func readCall(r *rng, c *toolCall, sb *strings.Builder) {
	c.name = "read"
	path := pick(r, goPaths)
	if r.oneIn(3) {
		path = pick(r, otherPaths)
	}
	c.args = []kv{{k: "path", s: path}}
	from := 1
	if r.oneIn(3) {
		from = r.between(1, 300)
		c.args = append(c.args, kv{k: "offset", n: from, num: true}, kv{k: "limit", n: 80, num: true})
	}
	if r.oneIn(12) {
		c.isError = true
		sb.WriteString("read: open " + path + ": no such file or directory")
	} else {
		numbered(r, sb, from, r.between(5, 60))
	}
}

// editCall makes a replacement in a file.
func editCall(r *rng, c *toolCall, sb *strings.Builder) {
	c.name = "edit"
	path := pick(r, goPaths)
	var oldText, newText strings.Builder
	lines(r, &oldText, codeLines, r.between(1, 4))
	lines(r, &newText, codeLines, r.between(1, 6))
	c.args = []kv{{k: "path", s: path}, {k: "old_text", s: oldText.String()}, {k: "new_text", s: newText.String()}}
	if r.oneIn(6) {
		c.isError = true
		sb.WriteString("edit: old_text not found in " + path + " (did the file change since it was read?)")
	} else {
		sb.WriteString("Edited " + path + ": 1 replacement (" + strconv.Itoa(strings.Count(oldText.String(), "\n")) +
			" → " + strconv.Itoa(strings.Count(newText.String(), "\n")) + " lines)")
	}
}

// grepCall makes a search over the tree.
func grepCall(r *rng, c *toolCall, sb *strings.Builder) {
	c.name = "grep"
	pat := pick(r, grepPatterns)
	c.args = []kv{{k: "pattern", s: pat}, {k: "path", s: pick(r, []string{".", "internal/", "pkg/", "web/src"})}}
	grepLines(r, sb, r.between(0, 12))
	if sb.Len() == 0 {
		sb.WriteString("no matches")
	}
}

// writeCall makes a file written whole.
func writeCall(r *rng, c *toolCall, sb *strings.Builder) {
	c.name = "write"
	path := pick(r, []string{"docs/cache.md", "notes/todo.md", "internal/server/parse_test.go", "CHANGELOG.md"})
	var content strings.Builder
	if strings.HasSuffix(path, ".md") {
		content.WriteString("# " + pick(r, []string{"Cache", "TODO", "Changes"}) + "\n\n")
		content.WriteString(sentenceText(r, r.between(2, 8)))
		content.WriteByte('\n')
	} else {
		lines(r, &content, codeLines, r.between(10, 50))
	}
	c.args = []kv{{k: "path", s: path}, {k: "content", s: content.String()}}
	sb.WriteString("Wrote " + strconv.Itoa(content.Len()) + " bytes to " + path)
}
