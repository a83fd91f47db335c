package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/evtools/evtools/internal/views/transcript"
)

var updateTranscriptShots = flag.Bool("update-transcript-shots", false, "rewrite docs/images/transcript-* from the golden transcripts")

// The golden transcripts (internal/views/transcript/testdata), opened from disk
// in a real browser as a reader would: the page makes no request and logs
// no error; nothing is cut off (no box of text is wider than it shows) and
// the page does not scroll sideways, on a 1280-pixel screen, on a
// 390-pixel phone and printed on A4; the timeline's text is at least 11 px
// at every width; a link of the run list brings its run to the top of the
// screen; a folded tool call shows its output only once it is opened, and
// hides it again; the page prints to a PDF.
func TestTranscriptInABrowser(t *testing.T) {
	exe := chromium(t)
	pages, _ := filepath.Glob("../../views/transcript/testdata/*.html")
	if len(pages) == 0 {
		t.Fatal("no golden pages in internal/views/transcript/testdata")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1280, 900))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	for _, p := range pages {
		t.Run(filepath.Base(p), func(t *testing.T) {
			ctx, cancel := startBrowser(t, actx)
			defer cancel()
			ctx, cancel2 := context.WithTimeout(ctx, 60*time.Second)
			defer cancel2()
			watch := watchPage(t, ctx, p)
			openPage(t, ctx, p)
			// Everything laid out, as a reader scrolling down sees it:
			// what is off the screen is not laid out until then.
			evaluate[int](t, ctx, layOutAll)
			for _, v := range []struct {
				media string
				width int64
			}{{"screen", 1280}, {"print", a4Width}, {"screen", 390}} {
				where := fmt.Sprintf("%s at %d px", v.media, v.width)
				if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: v.media}); err != nil {
					t.Fatal(err)
				}
				if err := chromedp.Do(ctx, chromedp.EmulateViewport(v.width, 900)); err != nil {
					t.Fatal(err)
				}
				clipped := evaluate[[]string](t, ctx, transcriptClippedJS)
				for _, c := range clipped {
					t.Errorf("%s: cut off: %s", where, c)
				}
				if w := evaluate[float64](t, ctx, `document.documentElement.scrollWidth`); w > float64(v.width) {
					t.Errorf("%s: the page is %v px wide", where, w)
				}
				if small := evaluate[[]string](t, ctx, smallTextJS); len(small) > 0 {
					t.Errorf("%s: %d timeline texts under 11 px, as %s", where, len(small), small[0])
				}
			}
			if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "screen"}); err != nil {
				t.Fatal(err)
			}
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
				t.Fatal(err)
			}
			checkRunLinks(t, ctx)
			checkFolding(t, ctx)
			if name := strings.TrimSuffix(filepath.Base(p), ".html"); *updateTranscriptShots && shotPages[name] {
				shots(t, ctx, name)
			}
			watch()
		})
	}
}

// layOutAll lays out the sections and entries a transcript lays out only
// near the screen.
const layOutAll = `document.querySelectorAll('section.run, li.e, nav.runs li').forEach(s => s.style.contentVisibility = 'visible'), 0`

// shotPages are the transcripts docs/images shows.
var shotPages = map[string]bool{"uname": true, "multiagent": true, "imported": true}

// The page of a stream of hostile values runs none of them: no dialog
// opens, no request leaves (a Markdown image is a link, not fetched).
func TestHostileTranscriptInABrowser(t *testing.T) {
	exe := chromium(t)
	var b bytes.Buffer
	w := transcript.New(&b, transcript.Options{Loc: time.UTC})
	io := `{"seq":1,"ts":1780000000,"run_id":"r\"><script>alert(1)</script>","agent_id":"","kind":"user_message","payload":{"text":"look <img src=x onerror=alert(2)> ![p](https://tracker.example/p.png) [c](javascript:alert(3))\n\n<script>alert(4)</script>"}}
{"seq":2,"ts":1780000001,"run_id":"r\"><script>alert(1)</script>","agent_id":"<svg onload=alert(5)>","kind":"tool_call","payload":{"tool":"<img src=y onerror=alert(6)>","args":{"command":"</pre><script>alert(7)</script>"}}}
{"seq":3,"ts":1780000002,"run_id":"r\"><script>alert(1)</script>","agent_id":"<svg onload=alert(5)>","kind":"tool_result","payload":{"tool":"<img src=y onerror=alert(6)>","ok":false,"output":"<iframe src=javascript:alert(8)></iframe>"}}
`
	w.Write([]byte(io))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, p, dialogs := pageWithDialogs(t, exe, "hostile.html", b.Bytes(), 30*time.Second)
	watch := watchPage(t, ctx, p)
	openPage(t, ctx, p)
	// Open every fold, so that what is inside is parsed and shown too.
	evaluate[int](t, ctx, `document.querySelectorAll('details').forEach(d => d.open = true), 0`)
	time.Sleep(300 * time.Millisecond)
	watch()
	if d := dialogs(); len(d) > 0 {
		t.Errorf("the data ran as script: dialogs %q", d)
	}
	if n := evaluate[int](t, ctx, `document.scripts.length + document.querySelectorAll('img,iframe,object,embed').length`); n != 0 {
		t.Errorf("the page has %d scripts, images or frames", n)
	}
}

// watchPage listens for requests other than the page's own and for errors
// logged; the function it returns reports them.
func watchPage(t *testing.T, ctx context.Context, p string) func() {
	abs, _ := filepath.Abs(p)
	url := "file://" + abs
	var mu sync.Mutex
	var requests []string
	err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok && e.Request.URL != url {
			mu.Lock()
			requests = append(requests, e.Request.URL)
			mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	return func() {
		mu.Lock()
		defer mu.Unlock()
		if len(requests) > 0 {
			t.Errorf("the page made requests: %v", requests)
		}
	}
}

func openPage(t *testing.T, ctx context.Context, p string) {
	abs, _ := filepath.Abs(p)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+abs), chromedp.WaitReady("body")); err != nil {
		t.Fatal(err)
	}
}

func evaluate[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// transcriptClippedJS lists the boxes of text that are wider than what
// they show: headings, entries' heads, Markdown, code and pre blocks,
// tables in replies, the run list.
const transcriptClippedJS = `[...document.querySelectorAll('h1, h2, .meta, .h, summary, .md, .md table, .msg, pre, code, nav li, figure')]
	.filter(e => e.getClientRects().length && e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'auto')
	.map(e => e.tagName.toLowerCase() + '.' + e.className + ' "' + e.textContent.trim().slice(0, 40) + '": ' + e.scrollWidth + ' px in ' + e.clientWidth)`

// checkRunLinks clicks each link of the run list and sees its run's
// section at the top of the screen.
func checkRunLinks(t *testing.T, ctx context.Context) {
	n := evaluate[int](t, ctx, `document.querySelectorAll('nav.runs a').length`)
	runs := evaluate[int](t, ctx, `document.querySelectorAll('section.run').length`)
	if runs > 1 && n != runs {
		t.Errorf("%d runs, %d links in the run list", runs, n)
	}
	for i := n; i >= 1; i-- {
		sel := fmt.Sprintf(`nav.runs a[href="#run-%d"]`, i)
		if err := chromedp.Do(ctx, chromedp.Click(sel)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		top := evaluate[float64](t, ctx, fmt.Sprintf(`document.getElementById('run-%d').getBoundingClientRect().top`, i))
		hash := evaluate[string](t, ctx, `location.hash`)
		// At the top of the screen, or the page scrolled to its end with
		// the section on the screen (the last runs of a page).
		atEnd := evaluate[bool](t, ctx, `scrollY + innerHeight >= document.documentElement.scrollHeight - 1`)
		if hash != fmt.Sprintf("#run-%d", i) || top < -2 || top > 40 && !(atEnd && top < 900) {
			t.Errorf("the link to run %d: location %q, its section at %.0f px from the top", i, hash, top)
		}
	}
}

// checkFolding opens a folded tool call (or thinking, or kind) by its
// summary and closes it again: its content shows only while it is open.
func checkFolding(t *testing.T, ctx context.Context) {
	const pick = `[...document.querySelectorAll('details:not([open])')].find(d => d.querySelector('pre, .md') && d.getClientRects().length)`
	if !evaluate[bool](t, ctx, `!!(`+pick+`)`) {
		return // nothing folded on this page
	}
	evaluate[int](t, ctx, `(`+pick+`).id = 'folded-under-test', 0`)
	// Shown: laid out, and not in the hidden content of a closed details
	// (checkVisibility says; a box may keep its size there).
	shown := func() float64 {
		return evaluate[float64](t, ctx, `(() => { const c = document.querySelector('#folded-under-test').querySelector('pre, .md'); return c.checkVisibility() ? c.getBoundingClientRect().height : 0 })()`)
	}
	if h := shown(); h != 0 {
		t.Errorf("a folded part shows %v px of its content", h)
	}
	click := func() {
		if err := chromedp.Do(ctx, chromedp.Click(`#folded-under-test > summary`)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	click()
	if h := shown(); h < 10 {
		t.Errorf("opened by its summary, a folded part shows %v px of its content", h)
	}
	click()
	if h := shown(); h != 0 {
		t.Errorf("closed again, a folded part shows %v px of its content", h)
	}
}

// shots writes the screenshots at 1280 and 390 px and the PDF print of a
// page into docs/images, for the docs and to be looked at.
func shots(t *testing.T, ctx context.Context, name string) {
	for _, w := range []int64{1280, 390} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, 900)); err != nil {
			t.Fatal(err)
		}
		evaluate[int](t, ctx, layOutAll)
		shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("../../../docs/images", fmt.Sprintf("transcript-%s.%d.png", name, w)), shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	background := true
	res, err := chromedp.Call(ctx, page.PrintToPDF, page.PrintToPDFParams{PrintBackground: &background, PaperWidth: 8.27, PaperHeight: 11.69})
	if err != nil {
		t.Fatal(err)
	}
	pdf := res.Data
	if err := os.WriteFile(filepath.Join("../../../docs/images", "transcript-"+name+".pdf"), pdf, 0o644); err != nil {
		t.Fatal(err)
	}
}

// schemeSpellings writes the 120 spellings of a link that a reader's
// click must not run: javascript:, vbscript: and data: URLs with their
// scheme spelled by character references (decimal and hexadecimal, with
// and without leading zeros or the semicolon), &colon;, &Tab; or
// &NewLine; inside, upper case, each in an inline link, one in <…>, an
// image, a reference definition and an autolink. Each carries its number.
func schemeSpellings() []string {
	schemes := []struct{ name, rest string }{
		{"javascript", "alert(%d)"},
		{"vbscript", "msgbox(%d)"},
		{"data", "text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==#%d"},
	}
	spell := []func(s string) string{
		func(s string) string { return fmt.Sprintf("&#%d;%s:", s[0], s[1:]) },
		func(s string) string { return fmt.Sprintf("&#%07d;%s:", s[0], s[1:]) },
		func(s string) string { return fmt.Sprintf("&#x%X;%s:", s[0], s[1:]) },
		func(s string) string { return fmt.Sprintf("&#X%06x;%s:", s[0], s[1:]) },
		func(s string) string { return fmt.Sprintf("&#%d%s:", s[0], s[1:]) },
		func(s string) string { return s + "&colon;" },
		func(s string) string { return s[:2] + "&Tab;" + s[2:] + ":" },
		func(s string) string { return strings.ToUpper(s[:2]) + "&NewLine;" + strings.ToUpper(s[2:]) + "&#58;" },
	}
	place := []func(n int, url string) string{
		func(n int, url string) string { return fmt.Sprintf("[link %d](%s)", n, url) },
		func(n int, url string) string { return fmt.Sprintf("[link %d](<%s>)", n, url) },
		func(n int, url string) string { return fmt.Sprintf("![image %d](%s)", n, url) },
		func(n int, url string) string { return fmt.Sprintf("[link %d][ref%d]\n\n[ref%d]: %s", n, n, n, url) },
		func(n int, url string) string { return fmt.Sprintf("<%s>", url) },
	}
	var out []string
	for _, s := range schemes {
		for _, sp := range spell {
			for _, p := range place {
				n := len(out) + 1
				out = append(out, p(n, sp(s.name)+fmt.Sprintf(s.rest, n)))
			}
		}
	}
	return out
}

// A Markdown link whose scheme is spelled with character references gets
// no javascript:, vbscript: or data: href, and clicking each link of the
// page runs nothing.
func TestTranscriptLinkSchemesInABrowser(t *testing.T) {
	exe := chromium(t)
	spellings := schemeSpellings()
	if len(spellings) != 120 {
		t.Fatalf("%d spellings", len(spellings))
	}
	text, _ := json.Marshal(strings.Join(spellings, "\n\n"))
	var b bytes.Buffer
	w := transcript.New(&b, transcript.Options{Loc: time.UTC})
	w.Write([]byte(`{"seq":1,"ts":1780000000,"run_id":"r1","agent_id":"","kind":"user_message","payload":{"text":` + string(text) + "}}\n"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, p, dialogs := pageWithDialogs(t, exe, "links.html", b.Bytes(), 120*time.Second)
	openPage(t, ctx, p)
	evaluate[int](t, ctx, layOutAll)
	bad := evaluate[[]string](t, ctx, `[...document.querySelectorAll('[href], [src]')]
		.map(e => e.href || e.src || e.getAttribute('href') || e.getAttribute('src'))
		.filter(u => /^\s*(javascript|vbscript|data):/i.test(u))`)
	if len(bad) > 0 {
		t.Errorf("%d of %d spellings link to a script or data URL, as %q", len(bad), len(spellings), bad[0])
	}
	if n := evaluate[int](t, ctx, `document.querySelectorAll('img, [src]').length`); n != 0 {
		t.Errorf("the page has %d images", n)
	}
	// Click every link, as a reader would; one that leaves the page (a
	// relative link) is followed by the page opened again.
	abs, _ := filepath.Abs(p)
	links := evaluate[int](t, ctx, `document.querySelectorAll('.md a').length`)
	for i := range links {
		if evaluate[string](t, ctx, `location.href`) != "file://"+abs {
			openPage(t, ctx, p)
		}
		evaluate[int](t, ctx, fmt.Sprintf(`document.querySelectorAll('.md a')[%d].click(), 0`, i))
		// Let what the click started run; a page left meanwhile ends the
		// wait with an error, which says nothing about the link.
		chromedp.Run(ctx, chromedp.Evaluate[int](`new Promise(r => setTimeout(() => r(0), 50))`, chromedp.EvalAwaitPromise))
	}
	if d := dialogs(); len(d) > 0 {
		t.Errorf("clicking the links ran %d scripts: %q", len(d), d)
	}
	t.Logf("%d spellings, %d links clicked", len(spellings), links)
}

// pageWithDialogs writes the page into a file called name and starts a
// browser for it, for at most limit; dialogs returns the messages of the
// dialogs the page opened (each accepted), which a page of data must not.
func pageWithDialogs(t *testing.T, exe, name string, html []byte, limit time.Duration) (ctx context.Context, path string, dialogs func() []string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, html, 0o644); err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1280, 900))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel = startBrowser(t, actx)
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, limit)
	t.Cleanup(cancel)
	var mu sync.Mutex
	var seen []string
	err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			mu.Lock()
			seen = append(seen, e.Message)
			mu.Unlock()
			go chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return ctx, path, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}
