package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	_ "image/jpeg"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

var updateShots = flag.Bool("update-screenshots", false, "rewrite docs/images/evsum-*.png from the golden pages")

// chromium finds a headless Chromium: .ci/run installs Debian's
// chromium-headless-shell when it is missing.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium-headless-shell", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if p := "/usr/lib/chromium/chromium-headless-shell"; fileExists(p) {
		return p
	}
	if os.Getenv("CI") == "" {
		t.Skip("no headless Chromium (.ci/run installs chromium-headless-shell)")
	}
	t.Fatal("no headless Chromium")
	return ""
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// The golden pages of evsum --format html (internal/folds/evsum/testdata/html),
// opened from disk in a real browser: no request leaves the page, nothing
// is logged as an error, the headline says what the JSON total record
// says, every bar is as long as its value says, and the page is not blank.
func TestHTMLReportInABrowser(t *testing.T) {
	exe := chromium(t)
	pages, _ := filepath.Glob("../../folds/evsum/testdata/html/*.html")
	if len(pages) == 0 {
		t.Fatal("no golden pages in internal/folds/evsum/testdata/html")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1280, 900))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	for _, page := range pages {
		t.Run(filepath.Base(page), func(t *testing.T) {
			checkPage(t, actx, page)
		})
	}
}

// startBrowser starts a browser for one page, and again when it crashed
// as it started: headless Chromium has died at start now and then on these
// machines (a segmentation fault before any page), which says nothing of
// the page.
func startBrowser(t *testing.T, actx context.Context) (context.Context, context.CancelFunc) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		ctx, cancel := chromedp.NewContext(actx)
		err := chromedp.Do(ctx) // no step: only the browser started
		if err == nil {
			return ctx, cancel
		}
		cancel()
		if attempt == 3 || !strings.Contains(err.Error(), "failed to start") {
			t.Fatal(err)
		}
		t.Logf("the browser did not start (attempt %d of 3): %v", attempt, err)
	}
}

// totalRecord is the JSON total record a page was made from, kept beside it.
type totalRecord struct {
	Runs       int64            `json:"runs"`
	ModelCalls int64            `json:"model_calls"`
	Tokens     map[string]int64 `json:"tokens"`
	Cost       json.Number      `json:"cost_usd"`
	ToolCalls  int64            `json:"tool_calls"`
	Errors     int64            `json:"errors"`
	Problems   []string         `json:"problems"`
	Outcomes   map[string]int64 `json:"outcomes"`
}

func checkPage(t *testing.T, actx context.Context, page string) {
	abs, _ := filepath.Abs(page)
	url := "file://" + abs
	ctx, cancel := startBrowser(t, actx)
	defer cancel()
	ctx, cancel2 := context.WithTimeout(ctx, 30*time.Second)
	defer cancel2()

	var mu sync.Mutex
	var requests, problems []string
	err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			if e.Request.URL != url {
				requests = append(requests, e.Request.URL)
			}
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				problems = append(problems, fmt.Sprintf("console %s", e.Type))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+e.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError || e.Entry.Level == cdplog.EntryLevelWarning {
				problems = append(problems, fmt.Sprintf("log %s: %s", e.Entry.Level, e.Entry.Text))
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitReady("body")); err != nil {
		t.Fatal(err)
	}
	type barBox struct {
		Chart  string  `json:"chart"`
		Axis   string  `json:"axis"`
		Value  float64 `json:"value"`
		Width  float64 `json:"width"`
		Height float64 `json:"height"`
	}
	headline, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](`Object.fromEntries([...document.querySelectorAll('[data-metric]')].map(e => [e.dataset.metric, e.querySelector('.value').innerText]))`))
	if err != nil {
		t.Fatal(err)
	}
	outcomes, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](`Object.fromEntries([...document.querySelectorAll('[data-outcome]')].map(e => [e.dataset.outcome, e.querySelector('b').innerText]))`))
	if err != nil {
		t.Fatal(err)
	}
	bars, err := chromedp.Run(ctx, chromedp.Evaluate[[]barBox](`[...document.querySelectorAll('figure[data-chart] rect.bar')].filter(r => r.getClientRects().length).map(r => { const b = r.getBoundingClientRect(); const f = r.closest('figure'); return {chart: f.dataset.chart, axis: f.dataset.axis, value: +r.dataset.value, width: b.width, height: b.height} })`))
	if err != nil {
		t.Fatal(err)
	}
	// In a 700-pixel mail pane nothing makes the page scroll sideways:
	// the wide table scrolls in its own box.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(700, 900)); err != nil {
		t.Fatal(err)
	}
	if w, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth`)); err != nil || w > 700 {
		t.Errorf("at 700 px the page is %v px wide (%v)", w, err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(requests) > 0 {
		t.Errorf("the page made requests: %v", requests)
	}
	if len(problems) > 0 {
		t.Errorf("the page logged: %v", problems)
	}
	mu.Unlock()

	// The headline against the total record.
	raw, err := os.ReadFile(strings.TrimSuffix(page, ".html") + ".total.json")
	if err != nil {
		t.Fatal(err)
	}
	var tot totalRecord
	if err := json.Unmarshal(raw, &tot); err != nil {
		t.Fatal(err)
	}
	cost, _ := tot.Cost.Float64()
	want := map[string]string{
		"runs":        commas(tot.Runs),
		"cost":        "$" + strconv.FormatFloat(math.Round(cost*1e4)/1e4, 'f', 4, 64),
		"tokens":      commas(tot.Tokens["total"]),
		"model_calls": commas(tot.ModelCalls),
		"tool_calls":  commas(tot.ToolCalls),
		"errors":      commas(tot.Errors),
		"problems":    commas(int64(len(tot.Problems))),
	}
	for k, v := range want {
		if headline[k] != v {
			t.Errorf("headline %s shows %q, the total record says %q", k, headline[k], v)
		}
	}
	for name, n := range tot.Outcomes {
		if outcomes[name] != commas(n) {
			t.Errorf("outcome %s shows %q, the total record says %d", name, outcomes[name], n)
		}
	}
	// The kills the errors' note names are the killed events, which
	// evimport's logs never have: "0 kills" beside "killed 2" reads as a
	// contradiction.
	if tot.Outcomes["killed"] > 0 {
		if note, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-metric=errors]').innerText`)); strings.Contains(note, "0 kills") {
			t.Errorf("the errors' card says %q beside killed %d", note, tot.Outcomes["killed"])
		}
	}

	// Every bar of a chart at the same scale: its length over its value
	// is the chart's, within a pixel.
	byChart := map[string][]int{}
	for i, b := range bars {
		byChart[b.Chart] = append(byChart[b.Chart], i)
	}
	if len(bars) == 0 {
		t.Error("no bars drawn")
	}
	for chart, idx := range byChart {
		length := func(i int) float64 {
			if bars[i].Axis == "y" {
				return bars[i].Height
			}
			return bars[i].Width
		}
		// The scale is the longest bar's: its length is least touched by
		// the rounding of coordinates.
		var k, top float64
		for _, i := range idx {
			if bars[i].Value > top {
				top, k = bars[i].Value, length(i)/bars[i].Value
			}
		}
		for _, i := range idx {
			if d := math.Abs(length(i) - bars[i].Value*k); d > 1 {
				t.Errorf("chart %s: a bar of %v is %.1f px long, %.1f px off its scale", chart, bars[i].Value, length(i), d)
			}
		}
	}

	// A screenshot that shows something.
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		// FullScreenshot with a quality below 100 is a JPEG.
		img, _, err = image.Decode(bytes.NewReader(shot))
	}
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	colours := map[uint32]bool{}
	bnd := img.Bounds()
	for y := bnd.Min.Y; y < bnd.Max.Y; y += 7 {
		for x := bnd.Min.X; x < bnd.Max.X; x += 7 {
			r, g, b, _ := img.At(x, y).RGBA()
			colours[r>>12<<8|g>>12<<4|b>>12] = true
		}
	}
	if len(colours) < 8 {
		t.Errorf("the screenshot is nearly blank: %d colours", len(colours))
	}
	if *updateShots {
		name := strings.TrimSuffix(filepath.Base(page), ".html")
		if err := os.WriteFile(filepath.Join("../../../docs/images", "evsum-"+name+".png"), shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// commas writes n (not negative) as the headline does, its digits in
// groups of three: 62,670.
func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// An A4 page printed with Chromium's default margins of 1 cm is 717 CSS
// px wide: 8.27 in less 0.8 in, at 96 px an inch.
const a4Width = 717

// The report fits where people read it: on a 1280-pixel screen and on a
// printed A4 page no cell of the group table is cut off or hidden behind
// a scrollbar (each box's scroll width is its client width), the page
// does not scroll sideways down to a 390-pixel phone, and the text of
// the charts is at least 11 CSS px tall at every width (its font size
// times the scale its SVG is drawn at).
func TestHTMLReportFits(t *testing.T) {
	exe := chromium(t)
	pages, _ := filepath.Glob("../../folds/evsum/testdata/html/*.html")
	if len(pages) == 0 {
		t.Fatal("no golden pages in internal/folds/evsum/testdata/html")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1280, 900))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	for _, file := range pages {
		name := strings.TrimSuffix(filepath.Base(file), ".html")
		t.Run(filepath.Base(file), func(t *testing.T) {
			abs, _ := filepath.Abs(file)
			ctx, cancel := startBrowser(t, actx)
			defer cancel()
			ctx, cancel2 := context.WithTimeout(ctx, 30*time.Second)
			defer cancel2()
			if err := chromedp.Do(ctx, chromedp.Navigate("file://"+abs), chromedp.WaitReady("body")); err != nil {
				t.Fatal(err)
			}
			for _, v := range []struct {
				media string
				width int64
			}{{"screen", 1280}, {"print", a4Width}, {"screen", 700}, {"screen", 390}} {
				where := fmt.Sprintf("%s at %d px", v.media, v.width)
				if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: v.media}); err != nil {
					t.Fatal(err)
				}
				if err := chromedp.Do(ctx, chromedp.EmulateViewport(v.width, 900)); err != nil {
					t.Fatal(err)
				}
				if v.width >= a4Width {
					clipped, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](clippedJS))
					if err != nil {
						t.Fatal(err)
					}
					for _, c := range clipped {
						t.Errorf("%s: cut off: %s", where, c)
					}
				}
				if w, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth`)); err != nil || w > float64(v.width) {
					t.Errorf("%s: the page is %v px wide (%v)", where, w, err)
				}
				if v.width == 390 {
					// on a phone the table scrolls sideways, its key held
					// at the left: the tokens and the cost are in sight
					// before any scroll
					hidden, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](offScreenJS))
					if err != nil {
						t.Fatal(err)
					}
					for _, h := range hidden {
						t.Errorf("%s: %s", where, h)
					}
				}
				small, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](smallTextJS))
				if err != nil {
					t.Fatal(err)
				}
				if len(small) > 0 {
					t.Errorf("%s: %d chart texts under 11 px, as %s", where, len(small), small[0])
				}
				if *updateShots && phoneShots[name] && v.width == 390 {
					shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
					if err != nil {
						t.Fatal(err)
					}
					writeImage(t, "evsum-"+name+".390.png", shot)
				}
			}
			if *updateShots && phoneShots[name] {
				// printed as a browser prints: no media emulated (screen
				// would hold over print's style), the window's own size
				if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{}); err != nil {
					t.Fatal(err)
				}
				if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
					t.Fatal(err)
				}
				res, err := chromedp.Call(ctx, page.PrintToPDF, page.PrintToPDFParams{PaperWidth: 8.27, PaperHeight: 11.69})
				if err != nil {
					t.Fatal(err)
				}
				writeImage(t, "evsum-"+name+".a4.pdf", res.Data)
			}
		})
	}
}

// phoneShots are the pages whose screenshot at 390 px and A4 print
// -update-screenshots writes into docs/images beside the 1280-pixel ones.
var phoneShots = map[string]bool{"multiagent.run": true, "three-days.day": true}

func writeImage(t *testing.T, name string, b []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join("../../../docs/images", name), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// clippedJS lists the boxes of the group tables and their cells whose
// content is wider than what they show.
const clippedJS = `[...document.querySelectorAll('.table, table, th, td')]
	.filter(e => e.getClientRects().length && e.scrollWidth > e.clientWidth)
	.map(e => e.tagName.toLowerCase() + ' "' + e.textContent.trim().slice(0, 30) + '": ' + e.scrollWidth + ' px in ' + e.clientWidth)`

// smallTextJS lists the shown texts of the charts drawn under 11 CSS px.
const smallTextJS = `[...document.querySelectorAll('svg text')]
	.filter(t => t.getClientRects().length)
	.map(t => { const m = t.getScreenCTM(); return [t.textContent, parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b)] })
	.filter(([, px]) => px < 10.99)
	.map(([s, px]) => '"' + s + '" at ' + px.toFixed(1) + ' px')`

// offScreenJS lists the headers of tokens and cost that the group table's
// box shows only after a scroll sideways.
const offScreenJS = `[...document.querySelectorAll('.table th')]
	.filter(th => th.textContent == 'tokens' || th.textContent == 'cost $')
	.filter(th => th.getBoundingClientRect().right > th.closest('.table').getBoundingClientRect().right)
	.map(th => '"' + th.textContent + '" off screen, at ' + Math.round(th.getBoundingClientRect().right) + ' px')`
