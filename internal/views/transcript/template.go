package transcript

import "html/template"

// The page's style. Each run's section, and each entry, is laid out only
// when it comes near the screen (content-visibility), so that a page of
// many runs, or of one long run, opens as fast as its first screen; print
// lays out everything, and unfolds nothing that is folded.
const style = `
:root{--fg:#1d232b;--dim:#5b6572;--line:#dde1e6;--bg:#f6f7f9;--card:#fff;--bad:#b3261e;--ok:#2e7d32;--kill:#6a1b9a;--warn:#a15c00;--model:#3f51b5;--tool:#00796b}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 -apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}
main{max-width:980px;margin:0 auto;padding:20px 14px 40px}
h1{font-size:22px;margin:0 0 4px;overflow-wrap:anywhere}
h2{font-size:17px;margin:0;overflow-wrap:anywhere}
.sub,.meta,.note,time{color:var(--dim)}
.sub{margin:0 0 8px;overflow-wrap:anywhere}
.totals{margin:0 0 16px}
code,pre,.mono{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:4px 0;background:#f3f4f6;border-radius:4px;padding:6px 8px}
code{overflow-wrap:anywhere}
nav.runs{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:8px 14px;margin-bottom:18px}
nav.runs ol{margin:6px 0;padding-left:0;list-style:none}
nav.runs li{padding:4px 0;border-bottom:1px solid #eceff2;overflow-wrap:anywhere;content-visibility:auto;contain-intrinsic-size:auto 30px}
nav.runs li:last-child{border-bottom:0}
nav.runs .n{display:inline-block;min-width:2.2em;color:var(--dim)}
section.run{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:12px 14px;margin:0 0 18px;content-visibility:auto;contain-intrinsic-size:auto 900px}
.runhead .meta{margin:2px 0 8px;overflow-wrap:anywhere}
.st{font-weight:600;white-space:nowrap}
.ok{color:var(--ok)}.bad .st,.st.bad,.tag.bad{color:var(--bad)}.open{color:var(--dim)}
figure.timeline{margin:6px 0 12px}
figure.timeline figcaption{font-size:13px;color:var(--dim)}
svg.gantt{display:block;width:100%;overflow:visible}
svg.gantt text{font-size:12px;fill:var(--fg)}
svg.gantt .tick{fill:var(--dim)}
svg.gantt line.grid{stroke:#e3e6ea;stroke-width:1}
svg.gantt rect.m{fill:var(--model);stroke:var(--model)}
svg.gantt rect.t{fill:var(--tool);stroke:var(--tool)}
svg.gantt rect.f{fill:var(--bad);stroke:var(--bad)}
svg.gantt line.e{stroke:var(--bad);stroke-width:2}
svg.gantt line.k{stroke:var(--kill);stroke-width:2}
svg.gantt line.g{stroke:var(--warn);stroke-width:2}
.legend{font-size:13px;color:var(--dim);margin:2px 0 0;display:flex;flex-wrap:wrap;gap:2px 14px}
.sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px;vertical-align:baseline}
ol.entries{list-style:none;margin:0;padding:0}
li.e{margin:8px 0;padding:0 0 0 10px;border-left:3px solid var(--line);content-visibility:auto;contain-intrinsic-size:auto 44px}
li.e.user{border-color:#1565c0}
li.e.reply{border-color:var(--ok)}
li.e.model{border-color:var(--model);font-size:13.5px}
li.e.tool{border-color:var(--tool)}
li.e.bad{border-color:var(--bad)}
li.e.kill{border-color:var(--kill)}
li.e.warn{border-color:var(--warn)}
li.e.agent{border-color:#8e24aa;background:#fbf8fc;padding:6px 8px 6px 10px;border-radius:0 6px 6px 0}
li.e.other,li.e.end,li.e.decide{font-size:13.5px}
.h{overflow-wrap:anywhere}
.tag{display:inline-block;min-width:3.6em;font-size:12px;font-weight:700;text-transform:uppercase;letter-spacing:.03em;color:var(--dim)}
li.bad>.h .tag,li.bad>details>summary .tag{color:var(--bad)}
li.kill .tag{color:var(--kill)}
li.warn .tag{color:var(--warn)}
time{font-size:12px;margin-left:6px;white-space:nowrap}
.md{overflow-wrap:anywhere}
.md>:first-child{margin-top:2px}.md>:last-child{margin-bottom:2px}
.md table{border-collapse:collapse;display:block;overflow-x:auto}
.md th,.md td{border:1px solid var(--line);padding:3px 6px}
.msg{white-space:pre-wrap;overflow-wrap:anywhere}
details>summary{cursor:pointer;overflow-wrap:anywhere}
details.think{margin:4px 0}
details.think>summary{color:var(--dim);font-size:13px}
.io .label{font-size:12px;color:var(--dim);margin-top:4px}
.agent>details>ol.entries{margin-top:4px}
footer{margin-top:28px;color:#8a939d;font-size:12.5px}
@media (max-width:600px){body{font-size:14px}main{padding:12px 8px 30px}section.run{padding:10px}li.e{padding-left:7px}}
@media print{body{background:#fff;-webkit-print-color-adjust:exact;print-color-adjust:exact}main{max-width:none;padding:0}section.run{content-visibility:visible;border:0;padding:0;break-inside:auto}li.e,nav.runs li{content-visibility:visible}li.e{break-inside:avoid}pre{background:#f6f6f6}}
`

// pageHTML is the page around the sections. Only html/template puts data
// into it: text and attributes are escaped for where they land; the
// sections are made by runHTML, the same way.
const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
{{- with .Generator}}
<meta name="generator" content="{{.}}">
{{- end}}
<title>{{.Title}}</title>
<style>` + style + `</style>
</head>
<body>
<main>
<header>
<h1>{{.Title}}</h1>
{{- with .Sub}}
<p class="sub">{{.}}</p>
{{- end}}
{{- with .Totals}}
<p class="totals">{{join .}}</p>
{{- end}}
</header>
{{- if .Runs}}
<nav class="runs" aria-label="runs">
<h2>Runs</h2>
<ol>
{{- range .Runs}}
<li><span class="n">{{.N}}</span>{{if .Omitted}}{{.Prompt}} <span class="meta">(not on this page)</span>{{else}}<a href="#run-{{.N}}">{{.Prompt}}</a>{{end}} <span class="st {{.OutClass}}">{{.Outcome}}</span>{{if .When}} <span class="meta">{{.When}}</span>{{end}}{{with .Meta}} <span class="meta">· {{join .}}</span>{{end}}</li>
{{- end}}
</ol>
</nav>
{{- end}}
{{- if .Empty}}
<p class="note">The stream has no events.</p>
{{- end}}
{{.Sections}}
{{- range .Notes}}
<p class="note">{{.}}</p>
{{- end}}
<footer>Written by {{if .Generator}}{{.Generator}}{{else}}evtools{{end}} --format html. Long texts are cut where the page says so; the events themselves have them whole.</footer>
</main>
</body>
</html>
`

// runHTML is one run's section: its header, its timeline, its entries.
const runHTML = `
<section class="run" id="run-{{.N}}" aria-labelledby="run-{{.N}}-h">
<div class="runhead">
<h2 id="run-{{.N}}-h">Run {{.N}}{{if .Title}}: {{.Title}}{{end}}</h2>
<p class="meta"><span class="st {{.OutClass}}">{{.Outcome}}</span>{{with .Meta}} · {{join .}}{{end}}{{if .When}} · started {{.When}}{{end}}{{if .ID}} · <code>{{.ID}}</code>{{end}}</p>
</div>
{{- with .Timeline}}
<figure class="timeline">
<figcaption>Timeline</figcaption>
<svg class="gantt" width="100%" height="{{.Height}}" role="img" aria-label="{{.Label}}">
{{- range .Ticks}}
<line class="grid" x1="{{.X}}" x2="{{.X}}" y1="0" y2="{{$.Timeline.AxisY}}"></line>
{{- end}}
{{- range .Lanes}}
<text x="0" y="{{.Y}}">{{.Label}}</text>
{{- end}}
{{- range .Bars}}
<rect class="{{.Class}}" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="8"><title>{{.Title}}</title></rect>
{{- end}}
{{- range .Marks}}
<line class="{{.Class}}" x1="{{.X}}" x2="{{.X}}" y1="{{.Y1}}" y2="{{.Y2}}"><title>{{.Title}}</title></line>
{{- end}}
{{- range .Ticks}}
<text class="tick" x="{{.X}}" y="{{$.Timeline.Height}}" dy="-3" text-anchor="{{.Anchor}}">{{.Label}}</text>
{{- end}}
</svg>
<p class="legend"><span><span class="sw" style="background:#3f51b5"></span>model call</span><span><span class="sw" style="background:#00796b"></span>tool call</span><span><span class="sw" style="background:#b3261e"></span>failed tool call, error</span><span><span class="sw" style="background:#6a1b9a"></span>kill</span><span><span class="sw" style="background:#a15c00"></span>guardrail</span></p>
</figure>
{{- end}}
{{template "entries" .Entries}}
{{- if .Hidden}}
<p class="note">{{n .Hidden}} entries not shown (to open quickly, a page holds about {{$.MaxPage}} of entries, {{n $.MaxEntries}} a run): <code>{{.HiddenCmd}}</code> writes a page of this run alone.</p>
{{- end}}
</section>
{{- define "entries"}}
<ol class="entries">
{{- range .}}
{{template "entry" .}}
{{- end}}
</ol>
{{- end}}
{{- define "head"}}<span class="tag">{{.Tag}}</span>{{if .Name}} <b>{{.Name}}</b>{{end}}{{if .Code}} <code>{{.Code}}</code>{{end}}{{if .Status}} <span class="st{{if .StatusBad}} bad{{else if eq .Status "ok"}} ok{{end}}">{{.Status}}</span>{{end}}{{with .Meta}} <span class="meta">{{join .}}</span>{{end}}{{if .Time}}<time datetime="{{.Date}}">{{.Time}}</time>{{end}}{{end}}
{{- define "body"}}
{{- if .MD}}
<div class="md">{{.MD}}</div>
{{- end}}
{{- if .Text}}
<div class="msg">{{.Text}}</div>
{{- end}}
{{- with .TextNote}}
<p class="note">… {{.}}</p>
{{- end}}
{{- if .Think}}
<details class="think"><summary>{{.ThinkHead}}</summary><div class="md">{{.Think}}</div>{{with .ThinkNote}}<p class="note">… {{.}}</p>{{end}}</details>
{{- end}}
{{- with .Args}}
<div class="io"><div class="label">{{.Label}}</div><pre>{{.Text}}</pre>{{with .Note}}<p class="note">… {{.}}</p>{{end}}</div>
{{- end}}
{{- if .Children}}
{{template "entries" .Children}}
{{- end}}
{{- with .Output}}
<div class="io"><div class="label">{{.Label}}</div><pre>{{.Text}}</pre>{{with .Note}}<p class="note">… {{.}}</p>{{end}}</div>
{{- end}}
{{- with .Payload}}
<pre>{{.}}</pre>
{{- end}}
{{- end}}
{{- define "entry"}}
<li class="e {{.Class}}">
{{- if .Fold}}<details{{if .Open}} open{{end}}><summary>{{template "head" .}}</summary>{{template "body" .}}</details>
{{- else}}<div class="h">{{template "head" .}}</div>{{template "body" .}}
{{- end}}</li>
{{- end}}`

var (
	pageTemplate = template.Must(template.New("page").Funcs(funcs).Parse(pageHTML))
	runTemplate  = template.Must(template.New("run").Funcs(funcs).Parse(runHTML))
)
