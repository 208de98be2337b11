package mail

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlToText converts an HTML body to plain text, as a mail client would
// show it in a plain-text reply: block elements and <br> become line
// breaks, list items get "- ", whitespace is collapsed outside <pre>, and
// <script>, <style>, <head> and comments are skipped.
//
// What the mail clients mark as quoted becomes "> " lines, so that
// [FreshText] treats it like a plain-text quote: <blockquote> (Apple's
// type="cite" too), Gmail's div.gmail_quote (with its gmail_attr
// attribution), Yahoo's div.yahoo_quoted, Thunderbird's moz-cite-prefix
// attribution, and everything from Outlook's divRplyFwdMsg header block or
// its appendonsend marker to the end of the document. A signature block
// (Thunderbird's moz-signature, Gmail's gmail_signature, Outlook's
// Signature, Proton's protonmail_signature_block, Apple's
// AppleMailSignature) is introduced by a "-- " line, the separator of a
// plain-text signature.
//
// The parser (golang.org/x/net/html, the HTML5 algorithm browsers use)
// makes sense of unclosed and misnested tags; markup nested deeper than it
// accepts (512 elements), and markup that would make it work in time
// quadratic in its length (see [parserIsLinear]), is read token by token
// instead. Either way the work is linear in len(s), which the parser of
// messages bounds (maxText).
func htmlToText(s string) string {
	if !parserIsLinear(s) {
		return htmlTokensToText(s)
	}
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		// Parse refuses markup nested deeper than 512 elements.
		return htmlTokensToText(s)
	}
	r := &htmlRenderer{}
	n := doc
	for n != nil {
		descend := r.enter(n)
		if descend && n.FirstChild != nil {
			n = n.FirstChild
			continue
		}
		if descend {
			r.exit(n)
		}
		for n != nil && n.NextSibling == nil {
			n = n.Parent
			if n != nil {
				r.exit(n)
			}
		}
		if n != nil {
			n = n.NextSibling
		}
	}
	r.endLine()
	return tidyLines(r.result())
}

// maxRootTags is the most <html> and <body> start tags a document may
// have for [html.Parse] to read it.
const maxRootTags = 16

// parserIsLinear reports whether s has at most maxRootTags <html> and
// <body> start tags. The parser merges the attributes of each repeated
// <html> or <body> tag into the first one, building a map of all the
// attributes gathered so far every time: n such tags cost n² steps (8,000
// tags of "<body aN>", 70 kB, took 8 s). Counting "<html" and "<body" in
// comments and scripts too errs on the side of the token renderer.
func parserIsLinear(s string) bool {
	n := 0
	for i := strings.IndexByte(s, '<'); i >= 0; {
		if t := s[i+1:]; len(t) >= 4 && (strings.EqualFold(t[:4], "html") || strings.EqualFold(t[:4], "body")) {
			if n++; n > maxRootTags {
				return false
			}
		}
		j := strings.IndexByte(s[i+1:], '<')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return true
}

// htmlTokensToText renders HTML the parser refused, token by token: an
// end tag closes the elements opened after its own start tag, and one
// that closes no open element is ignored.
func htmlTokensToText(s string) string {
	text, _ := renderTokens(s)
	return text
}

// renderTokens is [htmlTokensToText]; it also returns how many open
// elements the end tags looked at, which stays below the number of start
// tags: an element is looked at when an end tag closes it, once.
func renderTokens(s string) (text string, looked int) {
	r := &htmlRenderer{}
	z := html.NewTokenizer(strings.NewReader(s))
	open := openElements{count: map[string]int{}}
	skip := "" // the element whose content is skipped
	skipDepth := 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		tok := z.Token()
		if skip != "" {
			switch {
			case tt == html.StartTagToken && tok.Data == skip:
				skipDepth++
			case tt == html.EndTagToken && tok.Data == skip:
				if skipDepth--; skipDepth == 0 {
					skip = ""
				}
			}
			continue
		}
		switch tt {
		case html.TextToken:
			r.text(tok.Data)
		case html.StartTagToken, html.SelfClosingTagToken:
			n := &html.Node{Type: html.ElementNode, DataAtom: tok.DataAtom, Data: tok.Data, Attr: tok.Attr}
			descend := r.enter(n)
			switch {
			case tt == html.SelfClosingTagToken || isVoid(tok.DataAtom):
				if descend {
					r.exit(n)
				}
			case !descend:
				skip, skipDepth = tok.Data, 1
			default:
				open.push(n)
			}
		case html.EndTagToken:
			if open.count[tok.Data] == 0 {
				continue // closes nothing: no need to look
			}
			for {
				n := open.pop()
				r.exit(n)
				looked++
				if n.Data == tok.Data {
					break
				}
			}
		}
	}
	for len(open.stack) > 0 {
		r.exit(open.pop())
	}
	r.endLine()
	return tidyLines(r.result()), looked
}

// openElements is the token renderer's stack of open elements, with the
// number open of each name, so that an end tag matching none is dismissed
// without a look at the stack: looking would make n such end tags under n
// open elements cost n² (840 kB took a minute).
type openElements struct {
	stack []*html.Node
	count map[string]int
}

func (o *openElements) push(n *html.Node) {
	o.stack = append(o.stack, n)
	o.count[n.Data]++
}

func (o *openElements) pop() *html.Node {
	n := o.stack[len(o.stack)-1]
	o.stack = o.stack[:len(o.stack)-1]
	o.count[n.Data]--
	return n
}

func isVoid(a atom.Atom) bool {
	switch a {
	case atom.Area, atom.Base, atom.Br, atom.Col, atom.Embed, atom.Hr, atom.Img, atom.Input, atom.Link, atom.Meta,
		atom.Source, atom.Track, atom.Wbr:
		return true
	}
	return false
}

// htmlRenderer writes text lines, each with the quote depth that was in
// force when it started.
type htmlRenderer struct {
	lines []string
	cur   strings.Builder
	open  bool           // cur holds a started line (possibly empty)
	depth int            // quote depth of the current position
	rest  bool           // Outlook's marker was seen: everything after is quoted
	pre   int            // inside <pre>
	space bool           // a collapsed space is pending
	sigs  []int          // where the signatures being read start
	seps  map[int]string // "-- " lines to write before these lines
}

// maxQuoteMarks is the most ">" a line gets, however deep its quote.
const maxQuoteMarks = 8

// quotePrefix starts a line at quote depth d > 0.
func quotePrefix(d int) string { return strings.Repeat(">", min(d, maxQuoteMarks)) + " " }

// quoteDepth is the depth new lines get.
func (r *htmlRenderer) quoteDepth() int {
	if r.rest {
		return r.depth + 1
	}
	return r.depth
}

// write adds text to the current line, starting one if needed.
func (r *htmlRenderer) write(s string) {
	if !r.open {
		if d := r.quoteDepth(); d > 0 {
			r.cur.WriteString(quotePrefix(d))
		}
		r.open = true
	}
	r.cur.WriteString(s)
}

// endLine ends the current line, if one is started.
func (r *htmlRenderer) endLine() {
	if r.open {
		r.lines = append(r.lines, r.cur.String())
		r.cur.Reset()
		r.open = false
	}
	r.space = false
}

// br ends the current line, writing an empty one if none was started.
func (r *htmlRenderer) br() {
	if !r.open {
		r.write("")
	}
	r.endLine()
}

func (r *htmlRenderer) text(t string) {
	if r.pre > 0 {
		for i, l := range strings.Split(t, "\n") {
			if i > 0 {
				r.br()
			}
			if l != "" {
				r.write(l)
			}
		}
		return
	}
	for _, f := range splitKeepEdges(t) {
		if f == "" {
			r.space = true
			continue
		}
		if r.space && r.open && r.cur.Len() > 0 && !strings.HasSuffix(r.cur.String(), " ") {
			r.write(" ")
		}
		r.space = false
		r.write(f)
	}
}

// enter handles the start of n and reports whether to visit its children.
func (r *htmlRenderer) enter(n *html.Node) bool {
	switch n.Type {
	case html.TextNode:
		r.text(n.Data)
		return false
	case html.CommentNode, html.DoctypeNode:
		return false
	case html.DocumentNode:
		return true
	case html.ElementNode:
	default:
		return false
	}
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Head, atom.Title, atom.Template, atom.Noscript:
		return false
	case atom.Br:
		r.br()
		return false
	case atom.Img:
		return false
	}
	id, class := attr(n, "id"), attr(n, "class")
	if isOutlookSeparator(id) {
		r.endLine()
		r.rest = true
	}
	if isBlock(n.DataAtom) {
		r.endLine()
	}
	if isQuote(n, id, class) {
		r.endLine()
		r.depth++
	}
	if isSignature(id, class) {
		r.endLine()
		r.sigs = append(r.sigs, len(r.lines))
	}
	switch n.DataAtom {
	case atom.Pre:
		r.pre++
	case atom.Li:
		r.write("- ")
		r.space = false
	case atom.Td, atom.Th:
		r.space = true
	}
	return true
}

// exit handles the end of n (an element whose children were visited).
func (r *htmlRenderer) exit(n *html.Node) {
	if n.Type != html.ElementNode {
		return
	}
	id, class := attr(n, "id"), attr(n, "class")
	switch n.DataAtom {
	case atom.Pre:
		r.pre--
	case atom.Td, atom.Th:
		r.space = true
	}
	if isBlock(n.DataAtom) {
		r.endLine()
	}
	if isSignature(id, class) && len(r.sigs) > 0 {
		r.endLine()
		start := r.sigs[len(r.sigs)-1]
		r.sigs = r.sigs[:len(r.sigs)-1]
		r.markSignature(start)
	}
	if isQuote(n, id, class) {
		r.endLine()
		r.depth--
	}
}

// markSignature asks for a "-- " line before the signature that starts at
// line start, unless the signature is empty or has its own separator.
func (r *htmlRenderer) markSignature(start int) {
	prefix := ""
	if d := r.quoteDepth(); d > 0 {
		prefix = quotePrefix(d)
	}
	for i := start - 1; i >= 0 && i >= start-3; i-- {
		if t := strings.TrimSpace(strings.TrimPrefix(r.lines[i], prefix)); t == "--" {
			return // Gmail writes "-- " just before the signature block
		} else if t != "" {
			break
		}
	}
	for i, l := range r.lines[start:] {
		t := strings.TrimSpace(strings.TrimPrefix(l, prefix))
		if t == "" && i < 8 {
			continue
		}
		if t != "" && t != "--" { // Thunderbird and Gmail write "-- " themselves
			if r.seps == nil {
				r.seps = map[int]string{}
			}
			r.seps[start] = prefix + "-- "
		}
		return
	}
}

// result joins the lines, with the signature separators asked for.
func (r *htmlRenderer) result() string {
	var b strings.Builder
	for i, l := range r.lines {
		if sep, ok := r.seps[i]; ok {
			b.WriteString(sep + "\n")
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// hasClass reports whether the class attribute lists name (or a class
// ending in it: Outlook and webmail prefix classes when they quote, as in
// x_gmail_quote).
func hasClass(class, name string) bool {
	for _, c := range strings.Fields(class) {
		if strings.EqualFold(c, name) || strings.HasSuffix(strings.ToLower(c), "_"+name) {
			return true
		}
	}
	return false
}

func isQuote(n *html.Node, id, class string) bool {
	if n.DataAtom == atom.Blockquote {
		return true
	}
	return hasClass(class, "gmail_quote") || hasClass(class, "yahoo_quoted") || hasClass(class, "moz-cite-prefix") ||
		hasClass(class, "protonmail_quote") || strings.Contains(strings.ToLower(id), "yahoo_quoted")
}

// isOutlookSeparator: Outlook writes the original after
// <div id="appendonsend"></div> and under <div id="divRplyFwdMsg"> (x_
// prefixed when quoted again), without marking it as a quote.
func isOutlookSeparator(id string) bool {
	id = strings.ToLower(id)
	return strings.HasSuffix(id, "appendonsend") || strings.HasSuffix(id, "divrplyfwdmsg")
}

func isSignature(id, class string) bool {
	lid := strings.ToLower(id)
	return hasClass(class, "moz-signature") || hasClass(class, "gmail_signature") ||
		hasClass(class, "protonmail_signature_block") || lid == "signature" || strings.HasSuffix(lid, "_signature") ||
		lid == "applemailsignature" || lid == "ms-outlook-mobile-signature"
}

func isBlock(a atom.Atom) bool {
	switch a {
	case atom.P, atom.Div, atom.Tr, atom.Table, atom.Ul, atom.Ol, atom.Li, atom.H1, atom.H2, atom.H3,
		atom.H4, atom.H5, atom.H6, atom.Blockquote, atom.Hr, atom.Section, atom.Article, atom.Header,
		atom.Footer, atom.Dl, atom.Dt, atom.Dd, atom.Pre, atom.Body, atom.Center, atom.Address:
		return true
	}
	return false
}

// splitKeepEdges splits text at runs of whitespace; an empty string stands
// for each run, so leading and trailing whitespace is visible.
func splitKeepEdges(text string) []string {
	var out []string
	for len(text) > 0 {
		i := strings.IndexAny(text, " \t\r\n\f\u00a0")
		if i < 0 {
			out = append(out, text)
			break
		}
		if i > 0 {
			out = append(out, text[:i])
		}
		out = append(out, "")
		text = strings.TrimLeft(text[i:], " \t\r\n\f\u00a0")
	}
	return out
}

// tidyLines trims trailing spaces and collapses runs of blank lines (a
// line of only quote marks counts as blank within its quote).
func tidyLines(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	blank := 0
	for _, l := range lines {
		if t := strings.TrimRight(l, " \t"); strings.TrimSpace(strings.TrimLeft(t, ">")) == "--" {
			l = t + " " // the signature separator keeps its space
		} else {
			l = t
		}
		if strings.Trim(l, ">") == "" {
			blank++
			if blank > 1 {
				continue
			}
		} else {
			blank = 0
		}
		out = append(out, l)
	}
	return strings.Trim(strings.Join(out, "\n"), "\n")
}
