package mail

import (
	"html"
	"strings"
)

// htmlToText converts an HTML body to plain text: tags are dropped, block
// elements and <br> become line breaks, list items get "- ", entities are
// decoded, whitespace is collapsed outside <pre>, and the contents of
// <script>, <style>, <head> and comments are skipped. It is meant for the
// short HTML that mail clients write, not as a general renderer.
func htmlToText(s string) string {
	var b strings.Builder
	pre := 0
	space := false // a collapsed space is pending
	for len(s) > 0 {
		lt := strings.IndexByte(s, '<')
		if lt < 0 {
			lt = len(s)
		}
		if lt > 0 {
			text := html.UnescapeString(s[:lt])
			if pre > 0 {
				b.WriteString(text)
			} else {
				for _, f := range splitKeepEdges(text) {
					if f == "" {
						space = true
						continue
					}
					if space && b.Len() > 0 && !endsWithNewline(&b) {
						b.WriteByte(' ')
					}
					space = false
					b.WriteString(f)
				}
			}
			s = s[lt:]
			continue
		}
		// s starts with '<'.
		if strings.HasPrefix(s, "<!--") {
			end := strings.Index(s[4:], "-->")
			if end < 0 {
				break
			}
			s = s[4+end+3:]
			continue
		}
		gt := strings.IndexByte(s, '>')
		if gt < 0 {
			// A lone '<' is text.
			b.WriteString(s)
			break
		}
		tag := s[1:gt]
		s = s[gt+1:]
		closing := strings.HasPrefix(tag, "/")
		name := strings.ToLower(strings.TrimPrefix(tag, "/"))
		if i := strings.IndexAny(name, " \t\r\n/"); i >= 0 {
			name = name[:i]
		}
		switch name {
		case "script", "style", "head", "title":
			if !closing {
				end := strings.Index(strings.ToLower(s), "</"+name)
				if end < 0 {
					s = ""
				} else {
					s = s[end:]
				}
			}
		case "pre":
			if closing {
				if pre > 0 {
					pre--
				}
			} else {
				pre++
			}
			newline(&b)
		case "br":
			b.WriteByte('\n')
			space = false
		case "li":
			if !closing {
				newline(&b)
				b.WriteString("- ")
				space = false
			}
		case "p", "div", "tr", "table", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6",
			"blockquote", "hr", "section", "article", "header", "footer", "dl", "dt", "dd":
			newline(&b)
			space = false
		case "td", "th":
			if closing {
				space = true
			}
		}
	}
	return tidyLines(b.String())
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

func endsWithNewline(b *strings.Builder) bool {
	s := b.String()
	return len(s) > 0 && s[len(s)-1] == '\n'
}

func newline(b *strings.Builder) {
	if b.Len() > 0 && !endsWithNewline(b) {
		b.WriteByte('\n')
	}
}

// tidyLines trims trailing spaces and collapses runs of blank lines.
func tidyLines(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	blank := 0
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if l == "" {
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
