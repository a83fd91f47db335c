package transcript

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"
)

// hostile is a stream in which every value a page shows is markup, a
// script or a link of the wrong kind: the run and agent ids, the prompt,
// the reply, the thinking, a tool's name, arguments and output, a model,
// errors, a guardrail, a kind no table knows, bidirectional controls.
const hostile = `{"seq":1,"ts":1780000000,"run_id":"r\"><script>alert(1)</script>","agent_id":"","kind":"user_message","payload":{"text":"look: <script>alert(2)</script> <img src=x onerror=alert(3)> [click](javascript:alert(4)) ![pixel](https://tracker.example/p.png) <javascript:alert(5)>\n\n<div onclick=\"alert(6)\">block</div>"}}
{"seq":2,"ts":1780000001,"run_id":"r\"><script>alert(1)</script>","agent_id":"'><svg onload=alert(7)>","kind":"model_call","payload":{"step":1,"model":"m\"><b onmouseover=alert(8)>"}}
{"seq":3,"ts":1780000002,"run_id":"r\"><script>alert(1)</script>","agent_id":"'><svg onload=alert(7)>","kind":"model_result","payload":{"step":1,"input":1,"output":2,"thinking":"<iframe src=javascript:alert(9)></iframe> [x](JaVaScRiPt:alert(10)) [y](data:text/html,<script>alert(11)</script>)"}}
{"seq":4,"ts":1780000003,"run_id":"r\"><script>alert(1)</script>","agent_id":"'><svg onload=alert(7)>","kind":"tool_call","payload":{"id":"c\"1","tool":"<svg/onload=alert(12)>","args":{"command":"echo '</code></pre><script>alert(13)</script>'"}}}
{"seq":5,"ts":1780000004,"run_id":"r\"><script>alert(1)</script>","agent_id":"'><svg onload=alert(7)>","kind":"tool_result","payload":{"id":"c\"1","tool":"<svg/onload=alert(12)>","ok":false,"output":"</pre></details><script>alert(14)</script> \u202egnp.exe\u202c \u001b[2J"}}
{"seq":6,"ts":1780000005,"run_id":"r\"><script>alert(1)</script>","agent_id":"'><svg onload=alert(7)>","kind":"guardrail","payload":{"rule":"<script>alert(15)</script>","tool":"<b>","action":"<i>"}}
{"seq":7,"ts":1780000006,"run_id":"r\"><script>alert(1)</script>","agent_id":"<style>","kind":"agent_spawned","payload":{"role":"</title><script>alert(16)</script>","intent":"<object data=x>","model":"<embed>"}}
{"seq":8,"ts":1780000007,"run_id":"r\"><script>alert(1)</script>","agent_id":"'><svg onload=alert(7)>","kind":"<iframe srcdoc=x>","payload":{"x":"<script>alert(17)</script>"}}
{"seq":9,"ts":1780000008,"run_id":"r\"><script>alert(1)</script>","agent_id":"'><svg onload=alert(7)>","kind":"assistant_message","payload":{"text":"[ok](https://example.com/a?b=\"><script>alert(18)</script>) <a href=\"javascript:alert(19)\">a</a> ` + "`<script>`" + `"}}
{"seq":10,"ts":1780000009,"run_id":"r\"><script>alert(1)</script>","agent_id":"","kind":"run_error","payload":{"error":"<script>alert(20)</script>","stopped":"<b>"}}
{"seq":11,"ts":1780000009,"run_id":"r\"><script>alert(1)</script>","agent_id":"","kind":"run_finished","payload":{"outcome":"\"><script>alert(21)</script>"}}
{"seq":12,"ts":1780000010,"run_id":"<second>","agent_id":"","kind":"user_message","payload":{"text":"two runs: a run list"}}
`

// The elements the page is made of; none comes from the data.
var allowedTags = map[string]bool{
	"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true, "main": true,
	"header": true, "footer": true, "nav": true, "section": true, "div": true, "span": true, "p": true,
	"h1": true, "h2": true, "ol": true, "ul": true, "li": true, "a": true, "b": true, "code": true,
	"pre": true, "time": true, "details": true, "summary": true, "figure": true, "figcaption": true,
	"svg": true, "rect": true, "line": true, "text": true, "table": true, "thead": true, "tbody": true,
	"tr": true, "th": true, "td": true, "em": true, "strong": true, "del": true, "blockquote": true,
}

func TestHostileDataIsText(t *testing.T) {
	var b bytes.Buffer
	w := New(&b, Options{Loc: time.UTC, Files: []string{"<script>.jsonl"}})
	w.Write([]byte(hostile))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, m := range regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)`).FindAllStringSubmatch(page, -1) {
		if !allowedTags[strings.ToLower(m[2])] {
			t.Errorf("the page has a <%s%s> element", m[1], m[2])
		}
	}
	if m := regexp.MustCompile(`(?i)<[^>]*\son[a-z]+\s*=`).FindString(page); m != "" {
		t.Errorf("an element with an event handler: %s", m)
	}
	for _, m := range regexp.MustCompile(`(?i)\s(href|src|data|action|style|xlink:href)\s*=\s*"([^"]*)"`).FindAllStringSubmatch(page, -1) {
		name, v := strings.ToLower(m[1]), strings.ToLower(m[2])
		switch {
		case name == "href" && (strings.HasPrefix(v, "#run-") || strings.HasPrefix(v, "https://example.com/") || v == "https://tracker.example/p.png"):
		case name == "style" && strings.HasPrefix(v, "background:#"):
		default:
			t.Errorf("an attribute the page does not write: %s=%q", m[1], m[2])
		}
	}
	outsideSVG := regexp.MustCompile(`(?s)<svg.*?</svg>`).ReplaceAllString(page, "")
	if strings.Count(page, "<style>") != 1 || strings.Count(outsideSVG, "<title>") != 1 {
		t.Error("a second style element, or a title that is no tooltip")
	}
	for _, want := range []string{
		"&lt;script&gt;alert(2)&lt;/script&gt;",                   // the prompt's raw HTML, as text
		"&lt;div onclick=&#34;alert(6)&#34;&gt;block&lt;/div&gt;", // a block of it
		"&lt;svg/onload=alert(12)&gt;",                            // the tool's name
		`\u202egnp.exe\u202c`,                                     // the bidirectional controls, shown
		`\x1b[2J`,
		"&lt;/title&gt;&lt;script&gt;alert(16)&lt;/script&gt;", // the agent's role
		"&lt;iframe srcdoc=x&gt;",                              // an unknown kind
		"[image]",                                              // an image is a link, not fetched
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not show %q", want)
		}
	}
	if strings.ContainsRune(page, '\u202e') || strings.ContainsRune(page, '\x1b') {
		t.Error("a control character reaches the page raw")
	}
	if !strings.Contains(page, `href="#run-2"`) {
		t.Error("no run list")
	}
}

func TestAllowedURL(t *testing.T) {
	for url, want := range map[string]bool{
		"https://example.com": true, "http://x": true, "mailto:a@b": true, "#run-1": true,
		"docs/a.md": true, "/etc/passwd": true, "?q": true, "a:b/c": false,
		"javascript:alert(1)": false, " JavaScript:alert(1)": false, "data:text/html,x": false,
		"vbscript:x": false, "file:///etc/passwd": false, "": false, "java\tscript:x": false,
	} {
		if got := allowedURL([]byte(url)); got != want {
			t.Errorf("allowedURL(%q) = %v, want %v", url, got, want)
		}
	}
}

// A link's destination is read as CommonMark says (backslash escapes,
// entity and numeric references, decimal ones read as decimal whatever
// their leading zeros) before its scheme is checked, so that no spelling
// of a scheme the page refuses reaches an href.
func TestMarkdownLinks(t *testing.T) {
	for _, c := range []struct{ md, href string }{
		{"[x](&#106;avascript:alert(1))", ""},
		{"[x](&#x6A;avascript:alert(1))", ""},
		{"[x](&#X0006a;avascript:alert(1))", ""},
		{"[x](javascript&colon;alert(1))", ""},
		{"[x](java&Tab;script:alert(1))", ""},
		{"[x](JAVA&NewLine;SCRIPT:alert(1))", ""},
		{"[x](<&#106;avascript:alert(1)>)", ""},
		{"![x](&#106;avascript:alert(1))", ""},
		{"[x][r]\n\n[r]: &#106;avascript:alert(1)", ""},
		{"[x](&#100;ata:text/html;base64,PHNjcmlwdD4=)", ""},
		{"[x](&#118;bscript:msgbox(1))", ""},
		{"[x](&#0000106;ump)", "jump"},                                  // decimal, not octal
		{"[x](&#106avascript:alert(1))", "&amp;#106avascript:alert(1)"}, // no semicolon: no reference, a relative link
		{`[x](\&#106;ump)`, "&amp;#106;ump"},                            // an escaped & starts no reference
		{"[x](caf&eacute;)", "caf%C3%A9"},
		{"[x](&#x110000;)", "%EF%BF%BD"},
		{"[x](HTTPS&colon;//example.com/a&amp;b)", "HTTPS://example.com/a&amp;b"},
		{"[x](mailto&#58;a@example.com)", "mailto:a@example.com"},
		{"[x](#run-1)", "#run-1"},
		{"<https://example.com/&#106;>", "https://example.com/&amp;#106;"}, // an autolink's text is its URL
	} {
		got := ""
		if m := regexp.MustCompile(`href="([^"]*)"`).FindStringSubmatch(string(markdown(c.md))); m != nil {
			got = m[1]
		}
		if got != c.href {
			t.Errorf("%q: href %q, want %q", c.md, got, c.href)
		}
	}
}
