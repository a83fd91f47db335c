package transcript

import (
	"bytes"
	"html/template"
	"strings"

	"github.com/evtools/evtools/internal/term"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// Prompts, replies and thinking are Markdown, as the agents' own screens
// show them. goldmark follows CommonMark (and GitHub's tables, strike-
// through and bare links), so a reply reads as it did in the agent; a
// subset of our own would read differently on every construct it missed.
// Nothing the data writes becomes HTML of its making: raw HTML is shown as
// the text it is, a link goes only to http, https, mailto or a place with
// no scheme, and an image is a link to it (an image would be fetched when
// the page opens: the page makes no request).
var md = goldmark.New(
	goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.Linkify),
	goldmark.WithRendererOptions(
		renderer.WithNodeRenderers(util.Prioritized(safeNodes{}, 100)),
	),
)

// markdown renders s; a text that goldmark cannot render (none should)
// is shown as plain text.
func markdown(s string) template.HTML {
	var b bytes.Buffer
	if err := md.Convert([]byte(visible(s)), &b); err != nil {
		return template.HTML("<pre>" + template.HTMLEscapeString(visible(s)) + "</pre>")
	}
	return template.HTML(b.String())
}

// safeNodes renders the nodes through which a text could bring in markup
// or a request: raw HTML, links and images.
type safeNodes struct{}

func (safeNodes) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindRawHTML, renderRawHTML)
	reg.Register(ast.KindHTMLBlock, renderHTMLBlock)
	reg.Register(ast.KindLink, renderLink)
	reg.Register(ast.KindImage, renderImage)
	reg.Register(ast.KindAutoLink, renderAutoLink)
}

// raw HTML inline is its text.
func renderRawHTML(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		segs := n.(*ast.RawHTML).Segments
		for i := range segs.Len() {
			seg := segs.At(i)
			w.WriteString(template.HTMLEscapeString(string(seg.Value(src))))
		}
	}
	return ast.WalkSkipChildren, nil
}

// A block of raw HTML is its text, as a block of code.
func renderHTMLBlock(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	b := n.(*ast.HTMLBlock)
	if entering {
		w.WriteString("<pre><code>")
		lines := b.Lines()
		for i := range lines.Len() {
			line := lines.At(i)
			w.WriteString(template.HTMLEscapeString(string(line.Value(src))))
		}
		if b.HasClosure() {
			w.WriteString(template.HTMLEscapeString(string(b.ClosureLine.Value(src))))
		}
		w.WriteString("</code></pre>\n")
	}
	return ast.WalkSkipChildren, nil
}

func renderLink(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	l := n.(*ast.Link)
	link(w, l.Destination, l.Title, entering)
	return ast.WalkContinue, nil
}

// An image is a link to it, its alternative text the link's.
func renderImage(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	im := n.(*ast.Image)
	if entering && !allowedURL(im.Destination) {
		w.WriteString("[image] ")
	}
	link(w, im.Destination, im.Title, entering)
	if entering && allowedURL(im.Destination) {
		w.WriteString("[image] ")
	}
	return ast.WalkContinue, nil
}

func renderAutoLink(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	l := n.(*ast.AutoLink)
	url := l.URL(src)
	if l.AutoLinkType == ast.AutoLinkEmail && !bytes.HasPrefix(bytes.ToLower(url), []byte("mailto:")) {
		url = append([]byte("mailto:"), url...)
	}
	link(w, url, nil, true)
	w.WriteString(template.HTMLEscapeString(string(l.Label(src))))
	link(w, url, nil, false)
	return ast.WalkContinue, nil
}

// link opens or closes an a element to url, or writes nothing when url
// is not one the page links to (its text is then shown alone).
func link(w util.BufWriter, url, title []byte, entering bool) {
	if !allowedURL(url) {
		return
	}
	if !entering {
		w.WriteString("</a>")
		return
	}
	w.WriteString(`<a href="`)
	w.WriteString(template.HTMLEscapeString(string(util.URLEscape(url, true))))
	w.WriteString(`" rel="nofollow noopener noreferrer"`)
	if len(title) > 0 {
		w.WriteString(` title="`)
		w.WriteString(template.HTMLEscapeString(string(title)))
		w.WriteString(`"`)
	}
	w.WriteString(">")
}

// allowedURL reports whether the page links to url: http, https and
// mailto, or a URL without a scheme (a place in the page, a relative
// path).
func allowedURL(url []byte) bool {
	u := strings.ToLower(strings.TrimSpace(string(url)))
	if u == "" {
		return false
	}
	for _, p := range []string{"http://", "https://", "mailto:"} {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	// No scheme: no colon before the first / ? or #.
	end := strings.IndexAny(u, "/?#")
	if end < 0 {
		end = len(u)
	}
	return !strings.Contains(u[:end], ":") && !strings.ContainsAny(u, "\\\x00\t\n\r")
}

// visible shows the characters that would change how the text around them
// reads (the bidirectional controls) or that a page or a terminal shows as
// nothing or acts on (control characters but tab and newline, the line
// and paragraph separators) as escapes, \u202e, \x1b, as the pretty view
// does (term.Escape): a log cannot reorder what a reader sees, nor reach a
// terminal the page is written to raw. A carriage return before a newline
// is dropped.
func visible(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	for {
		i := strings.IndexAny(s, "\n\t")
		if i < 0 {
			break
		}
		b.WriteString(term.Escape(s[:i]))
		b.WriteByte(s[i])
		s = s[i+1:]
	}
	if b.Len() == 0 {
		return term.Escape(s)
	}
	b.WriteString(term.Escape(s))
	return b.String()
}
