package transcript

import (
	"bytes"
	"html/template"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evtools/evtools/internal/core/term"
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
	link(w, resolveRefs(l.Destination), l.Title, entering)
	return ast.WalkContinue, nil
}

// An image is a link to it, its alternative text the link's.
func renderImage(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	im := n.(*ast.Image)
	dest := resolveRefs(im.Destination)
	if entering && !allowedURL(dest) {
		w.WriteString("[image] ")
	}
	link(w, dest, im.Title, entering)
	if entering && allowedURL(dest) {
		w.WriteString("[image] ")
	}
	return ast.WalkContinue, nil
}

// An autolink's URL is its text as written: CommonMark reads no escape
// and no reference in it.
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

// link opens or closes an a element to url (its references already
// resolved), or writes nothing when url is not one the page links to (its
// text is then shown alone). The scheme is checked on the URL the href
// will hold, so no spelling of one (&#106;avascript:, javascript&colon;)
// gets past the check to be decoded after it.
func link(w util.BufWriter, url, title []byte, entering bool) {
	if !allowedURL(url) {
		return
	}
	if !entering {
		w.WriteString("</a>")
		return
	}
	w.WriteString(`<a href="`)
	w.WriteString(template.HTMLEscapeString(string(util.URLEscape(url, false))))
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
// path). The scheme is read as a browser reads it: spaces and controls
// around the URL dropped, tabs and newlines inside it too.
func allowedURL(url []byte) bool {
	u := strings.TrimFunc(string(url), func(r rune) bool { return r <= ' ' })
	u = strings.ToLower(strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, u))
	if u == "" || strings.ContainsAny(u, "\\\x00") {
		return false
	}
	// A scheme is a letter, then letters, digits, + - or ., then a colon.
	i := 0
	for i < len(u) && (u[i] >= 'a' && u[i] <= 'z' || i > 0 && (u[i] >= '0' && u[i] <= '9' || strings.IndexByte("+-.", u[i]) >= 0)) {
		i++
	}
	if i == 0 || i == len(u) || u[i] != ':' {
		return true
	}
	switch u[:i] {
	case "http", "https", "mailto":
		return true
	}
	return false
}

// resolveRefs reads a link's destination as CommonMark does: a backslash
// before ASCII punctuation stands for it, and entity and numeric
// references (&colon;, &#106;, &#x6A;) for their characters. goldmark's
// own resolver reads the backslashes first, so that \&#106; is a j, and
// a decimal reference with leading zeros as octal (&#0000106; is an F);
// a browser reads the characters as written here.
func resolveRefs(dest []byte) []byte {
	if !bytes.ContainsAny(dest, "\\&") {
		return dest
	}
	var b []byte
	for i := 0; i < len(dest); i++ {
		c := dest[i]
		if c == '\\' && i+1 < len(dest) && util.IsPunct(dest[i+1]) {
			b = append(b, dest[i+1])
			i++
			continue
		}
		if c == '&' {
			if r, n := reference(dest[i:]); n > 0 {
				b = append(b, r...)
				i += n - 1
				continue
			}
		}
		b = append(b, c)
	}
	return b
}

// reference reads the reference s starts with: its characters and its
// length, or a length of 0 when s starts with none. CommonMark's numeric
// references have 1 to 7 decimal digits or 1 to 6 hexadecimal ones; the
// code points that are no character (0, surrogates, past U+10FFFF) stand
// for U+FFFD.
func reference(s []byte) ([]byte, int) {
	// The longest entity name has 31 letters: looking no further keeps a
	// destination of many & and no ; linear.
	end := bytes.IndexByte(s[:min(len(s), 40)], ';')
	if end < 2 {
		return nil, 0
	}
	body := string(s[1:end])
	if body[0] != '#' {
		if e, ok := util.LookUpHTML5EntityByName(body); ok {
			return e.Characters, end + 1
		}
		return nil, 0
	}
	digits, base, max := body[1:], 10, 7
	if len(digits) > 0 && (digits[0] == 'x' || digits[0] == 'X') {
		digits, base, max = digits[1:], 16, 6
	}
	if len(digits) == 0 || len(digits) > max {
		return nil, 0
	}
	v, err := strconv.ParseUint(digits, base, 32)
	if err != nil {
		return nil, 0
	}
	r := rune(v)
	if v == 0 || !utf8.ValidRune(r) {
		r = utf8.RuneError
	}
	return utf8.AppendRune(nil, r), end + 1
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
