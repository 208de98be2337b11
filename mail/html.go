package mail

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlToText converts an HTML body to plain text, as a mail client would
// show it in a plain-text reply: block elements and <br> become line
// breaks, list items get "- ", whitespace is collapsed outside <pre>, and
// <script>, <style>, <title> and comments are skipped.
//
// What the mail clients mark as quoted becomes "> " lines, so that
// [FreshText] treats it like a plain-text quote: <blockquote> (Apple's
// type="cite" too), Gmail's div.gmail_quote (with its gmail_attr
// attribution), Yahoo's div.yahoo_quoted, Thunderbird's moz-cite-prefix
// attribution, and everything from Outlook's divRplyFwdMsg header block,
// its appendonsend marker or Hotmail's hr#stopSpelling rule to the end of
// the document. A signature block
// (Thunderbird's moz-signature, Gmail's gmail_signature, Outlook's
// Signature, Proton's protonmail_signature_block, Apple's
// AppleMailSignature) is introduced by a "-- " line, the separator of a
// plain-text signature.
//
// It reads the markup token by token (golang.org/x/net/html's tokenizer),
// in time and memory linear in len(s), which the parser of messages bounds
// (maxText): an end tag closes the elements opened after its own start
// tag, one that closes no open element is ignored (but </br> and </p>
// end the line, as in browsers), and an element left open ends with the
// document. The HTML5 tree builder (html.Parse), which
// gave the same text for every client's reply in testdata/clients, is not
// used: it refuses markup nested deeper than 512 elements, and some markup
// makes it work in time quadratic in its length (the attributes of
// repeated <body> tags, or of a formatting element cloned at each
// paragraph: 40 kB took 7 s) or hundreds of steps per tag (a 512-deep
// stack walked at each end tag: 1 MB took 13 s).
func htmlToText(s string) string {
	text, _ := renderTokens(s)
	return text
}

// renderTokens is [htmlToText]; it also returns a measure of its work
// beyond reading the tokens: the open elements the end tags looked at
// (each when an end tag closes it, once) and the bytes of lines read to
// place signature separators (each line at most once per quote depth).
func renderTokens(s string) (text string, work int) {
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
				// Closes nothing: no need to look. Browsers read </br> as
				// <br>, and </p> as an empty paragraph.
				switch tok.DataAtom {
				case atom.Br:
					r.br()
				case atom.P:
					r.endLine()
				}
				continue
			}
			for {
				n := open.pop()
				r.exit(n)
				work++
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
	return tidyLines(r.result()), work + r.read
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
	kinds map[[2]int]lineKind
	read  int // bytes of lines read by lineKind
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

// enter handles the start of the element n and reports whether to visit
// its content. The content of <head> is visited: an unclosed <head> must
// not hide the document, and what it holds (<title>, <style>, <meta>...)
// shows nothing.
func (r *htmlRenderer) enter(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Title, atom.Template, atom.Noscript:
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

// exit handles the end of the element n, whose content was visited.
func (r *htmlRenderer) exit(n *html.Node) {
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
	d := r.quoteDepth()
	for i := start - 1; i >= 0 && i >= start-3; i-- {
		if k := r.lineKind(i, d); k == lineDashes {
			return // Gmail writes "-- " just before the signature block
		} else if k != lineBlank {
			break
		}
	}
	for i := start; i < len(r.lines); i++ {
		k := r.lineKind(i, d)
		if k == lineBlank && i-start < 8 {
			continue
		}
		if k == lineText { // Thunderbird and Gmail write "-- " themselves
			if r.seps == nil {
				r.seps = map[int]string{}
			}
			prefix := ""
			if d > 0 {
				prefix = quotePrefix(d)
			}
			r.seps[start] = prefix + "-- "
		}
		return
	}
}

type lineKind uint8

const (
	lineText   lineKind = iota
	lineBlank           // nothing but spaces within its quote
	lineDashes          // "--", a signature separator
)

// lineKind says what line i is within a quote of depth d. It is kept:
// nested signatures ending together ask about the same lines, which would
// be read again for each (a long line of spaces in <pre> made n nested
// signatures cost n times its length).
func (r *htmlRenderer) lineKind(i, d int) lineKind {
	key := [2]int{i, min(d, maxQuoteMarks)}
	if k, ok := r.kinds[key]; ok {
		return k
	}
	prefix := ""
	if d > 0 {
		prefix = quotePrefix(d)
	}
	r.read += len(r.lines[i])
	k := lineText
	switch strings.TrimSpace(strings.TrimPrefix(r.lines[i], prefix)) {
	case "":
		k = lineBlank
	case "--":
		k = lineDashes
	}
	if r.kinds == nil {
		r.kinds = map[[2]int]lineKind{}
	}
	r.kinds[key] = k
	return k
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
// prefixed when quoted again), Hotmail after <hr id="stopSpelling">
// (ecx prefixed when quoted again), without marking it as a quote.
func isOutlookSeparator(id string) bool {
	id = strings.ToLower(id)
	return strings.HasSuffix(id, "appendonsend") || strings.HasSuffix(id, "divrplyfwdmsg") ||
		strings.HasSuffix(id, "stopspelling")
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
