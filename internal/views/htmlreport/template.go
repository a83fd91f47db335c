package htmlreport

// pageHTML is the page. Only html/template puts data into it: text,
// attributes and SVG alike are escaped for their context.
const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="evsum {{.Version}}">
<title>{{.Title}}</title>
<style>
body{margin:0;background:#f6f7f9;color:#1d232b;font:14px/1.45 -apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}
main{max-width:1180px;margin:0 auto;padding:20px 16px 40px}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:16px;margin:28px 0 10px}
.sub{color:#5b6572;margin:0 0 16px}
.empty{font-size:16px;margin:8px 0}
.cards{display:flex;flex-wrap:wrap;gap:10px}
.card{background:#fff;border:1px solid #dde1e6;border-radius:6px;padding:10px 14px;min-width:120px;flex:1 1 120px}
.card .label{color:#5b6572;font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.card .value{font-size:22px;font-weight:600;font-variant-numeric:tabular-nums}
.card .note{font-size:12px;color:#5b6572}
.card.bad .note,.card.bad .value,.card .note.bad{color:#b3261e}
.outcomes{margin:10px 0 0;padding:0;list-style:none;display:flex;flex-wrap:wrap;gap:6px 16px}
.outcomes li{font-size:13px}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:5px;vertical-align:baseline}
.charts{display:flex;flex-wrap:wrap;gap:14px}
figure{background:#fff;border:1px solid #dde1e6;border-radius:6px;margin:0;padding:10px;flex:1 1 562px;max-width:100%;box-sizing:border-box;overflow-x:auto}
figcaption{font-weight:600;margin-bottom:4px}
svg{display:block;max-width:none}
svg text{font-size:11px;fill:#1d232b}
svg .tick,svg .axis{fill:#5b6572}
svg .axis,svg .foot{font-style:italic}
svg .foot{fill:#5b6572}
svg.narrow{display:none}
@media screen and (max-width:599px){main{padding:14px 8px 30px}figure{flex-basis:auto}svg.wide{display:none}svg.narrow{display:block}td:first-child{position:sticky;left:0;background:#fff}th:first-child{position:sticky;left:0}}
svg line{stroke:#9aa3ad;stroke-width:1}
.table{overflow-x:auto;background:#fff;border:1px solid #dde1e6;border-radius:6px}
table{border-collapse:collapse;font-size:12.5px;font-variant-numeric:tabular-nums;width:100%}
th,td{padding:5px 6px;border-bottom:1px solid #eceff2;text-align:left;white-space:nowrap}
th{background:#f0f2f5;font-weight:600;white-space:normal;vertical-align:bottom}
td.wrap{white-space:normal;overflow-wrap:anywhere;min-width:6em}
td.num,th.num{text-align:right}
tr.total td{font-weight:700;border-top:2px solid #c5cbd3}
tr.other td{color:#5b6572;font-style:italic}{{if .Parts}}
tr.part td{color:#5b6572;border-bottom-style:dotted}
tr.part td:first-child{padding-left:22px}{{end}}
.note{color:#5b6572;font-size:12.5px}
ol.problems{background:#fff;border:1px solid #dde1e6;border-radius:6px;padding:10px 10px 10px 36px;margin:0}
ol.problems li{margin:4px 0}
code{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f0f2f5;padding:1px 4px;border-radius:3px;word-break:break-all}
footer{margin-top:30px;color:#8a939d;font-size:12px}
@media print{body{background:#fff}main{max-width:none;padding:0}.card,figure,ol.problems{border-color:#bbb;break-inside:avoid}.table{border-color:#bbb}table{font-size:9.5px}th,td{padding:3px}thead{display:table-header-group}tr{break-inside:avoid}}
</style>
</head>
<body>
<main>
<h1>{{.Title}}</h1>
{{- if .Empty}}
<p class="empty">{{.Empty}}</p>
{{- end}}
<p class="sub">{{.Grouping}}{{if .Files}} · from <code>{{.Files}}</code>{{end}}</p>

<section aria-label="headline">
<div class="cards">
{{- range .Cards}}
<div class="card{{if .Bad}} bad{{end}}" data-metric="{{.Metric}}"><div class="label">{{.Label}}</div><div class="value">{{.Value}}</div>{{if .Note}}<div class="note{{if .BadNote}} bad{{end}}">{{.Note}}</div>{{end}}</div>
{{- end}}
</div>
{{- if .Outcomes}}
<ul class="outcomes" aria-label="runs by outcome">
{{- range .Outcomes}}
<li data-outcome="{{.Name}}"><span class="swatch" style="background:{{.Color}}"></span>{{.Name}} <b>{{.N}}</b></li>
{{- end}}
</ul>
{{- end}}
</section>

{{- if .Charts}}
<h2>Charts</h2>
<section class="charts">
{{- range .Charts}}
<figure id="chart-{{.ID}}" data-chart="{{.ID}}" data-axis="{{if .Vertical}}y{{else}}x{{end}}">
<figcaption>{{.Title}}</figcaption>
{{- range .Views}}
<svg class="{{.Class}}" width="{{attr .W}}" height="{{attr .H}}" viewBox="0 0 {{attr .W}} {{attr .H}}" role="img" aria-labelledby="t-{{.ID}} d-{{.ID}}">
<title id="t-{{.ID}}">{{.Title}}</title>
<desc id="d-{{.ID}}">{{.Desc}}</desc>
{{- range .Legend}}
<rect x="{{attr .X}}" y="{{attr .Y}}" width="10" height="10" fill="{{.Color}}"></rect><text x="{{attr .X}}" y="{{attr .Y}}" dx="14" dy="9">{{.Name}}</text>
{{- end}}
{{- range .Axes}}
<line x1="{{attr .X1}}" y1="{{attr .Y1}}" x2="{{attr .X2}}" y2="{{attr .Y2}}"></line>
{{- end}}
{{- range .Bars}}
<rect class="bar" data-value="{{.Value}}" data-series="{{.Series}}" x="{{attr .X}}" y="{{attr .Y}}" width="{{attr .W}}" height="{{attr .H}}" fill="{{.Color}}"><title>{{.Title}}</title></rect>
{{- end}}
{{- range .Labels}}
<text class="{{.Class}}" x="{{attr .X}}" y="{{attr .Y}}" text-anchor="{{.Anchor}}"{{if .Rotate}} transform="rotate(-40 {{attr .X}} {{attr .Y}})"{{end}}>{{.Text}}</text>
{{- end}}
</svg>
{{- end}}
</figure>
{{- end}}
</section>
{{- end}}

{{- if .Rows}}
<h2>Groups</h2>
<div class="table">
<table>
<thead><tr>{{range .Head}}<th{{if .Right}} class="num"{{end}}>{{.Text}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Rows}}
<tr{{if .Total}} class="total"{{else if .Other}} class="other"{{else if .Part}} class="part"{{end}}>{{range .Cells}}<td{{if .Right}} class="num"{{else if .Wrap}} class="wrap"{{end}}>{{.Text}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
</div>
{{- if .Folded}}
<p class="note">{{.Folded}}</p>
{{- end}}
{{- end}}

<h2>Problems</h2>
{{- if .Problems}}
<ol class="problems">
{{- range .Problems}}
<li><span class="problem">{{.Text}}</span>{{if .Command}}<br><code>{{.Command}}</code>{{end}}</li>
{{- end}}
</ol>
{{- if .MoreProblems}}
<p class="note">and {{.MoreProblems}} more: <code>evsum --format jsonl</code> lists them all.</p>
{{- end}}
{{- else if .Empty}}
<p class="note">No runs, so none to check.</p>
{{- else}}
<p class="note">None: every run kept the invariants evsum checks.</p>
{{- end}}

<footer>Made by evsum {{.Version}}. Numbers are rounded as in evsum's other formats; the JSON report has them exact.</footer>
</main>
</body>
</html>
`
