package e2e

import (
	"context"
	"flag"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

var transcriptPage = flag.String("transcript-page", "", "the page BenchmarkTranscriptOpen opens")

// BenchmarkTranscriptOpen opens a transcript page (-transcript-page) in
// headless Chromium at 1280 px and reports how long the browser took from
// the start of the navigation to the first paint of content (fcp-ms), to
// the end of its load event (load-ms), and the page's elements (nodes).
// docs/transcript.md quotes it for a 50 MB session:
//
//	go test ./internal/devtools/e2e -run - -bench TranscriptOpen -benchtime 5x -transcript-page /tmp/page.html
func BenchmarkTranscriptOpen(b *testing.B) {
	if *transcriptPage == "" {
		b.Skip("no -transcript-page")
	}
	exe := chromium(&testing.T{})
	abs, _ := filepath.Abs(*transcriptPage)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1280, 900))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	var fcp, load, nodes float64
	for b.Loop() {
		ctx, cancel := chromedp.NewContext(actx)
		ctx, cancel2 := context.WithTimeout(ctx, 120*time.Second)
		if err := chromedp.Do(ctx, chromedp.Navigate("file://"+abs), chromedp.WaitReady("body")); err != nil {
			b.Fatal(err)
		}
		v, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`new Promise(r => { const done = () => { const n = performance.getEntriesByType('navigation')[0]; const p = performance.getEntriesByName('first-contentful-paint')[0]; r([p ? p.startTime : -1, n.loadEventEnd, document.getElementsByTagName('*').length]) }; if (document.readyState === 'complete') setTimeout(done, 50); else addEventListener('load', () => setTimeout(done, 50)) })`, chromedp.EvalAwaitPromise))
		if err != nil {
			b.Fatal(err)
		}
		fcp += v[0]
		load += v[1]
		nodes = v[2]
		cancel2()
		cancel()
	}
	b.ReportMetric(fcp/float64(b.N), "fcp-ms")
	b.ReportMetric(load/float64(b.N), "load-ms")
	b.ReportMetric(nodes, "nodes")
}
