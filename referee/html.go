package referee

import (
	"fmt"
	"html"
	"regexp"
	"strings"

	"pbem/archive"
	"pbem/engine"
	"pbem/engine/picture"
)

// htmlHead opens every HTML mail: a page that reads on a phone (the
// viewport), in dark mode (one style block, for the media query: light
// text on a dark ground, the board on its own light ground) and in
// Outlook's Word engine (inline styles only otherwise).
const htmlHead = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><meta name="supported-color-schemes" content="light dark">
<style>@media (prefers-color-scheme: dark){body,.pbem{background:#161616 !important;color:#e6e6e6 !important}.pbem a{color:#8ab4f8 !important}.pbem .board{background:#ffffff !important}.pbem .foot{color:#a0a0a0 !important}}</style>
</head>
<body style="margin:0;padding:0;background:#ffffff;color:#1a1a1a">
<div class="pbem" style="max-width:600px;margin:0 auto;padding:12px;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;font-size:16px;line-height:1.45;color:#1a1a1a;background:#ffffff">
`

const (
	pStyle    = `margin:0 0 12px 0`
	preStyle  = `margin:0 0 12px 0;white-space:pre-wrap;word-break:break-word;font-family:Menlo,Consolas,'Courier New',monospace;font-size:13px;line-height:1.3`
	footStyle = `margin:16px 0 0 0;font-size:13px;color:#666666`
	// imgCap is the widest a picture is shown (the column is 600 px
	// with its padding); smaller pictures keep their own width.
	imgCap = 576
)

var urlRE = regexp.MustCompile(`https?://[^\s<>"]+[^\s<>".,;:!?)]`)

// Draw gives the bytes of an inline image of a mail: its Data, or the
// picture drawn from its Picture (see archive.Inline), stored as
// picture.Drawing.JSON writes it or, by mails stored before, as a JSON
// object.
func Draw(in *archive.Inline) ([]byte, error) {
	if in.Data != nil || in.Picture == nil {
		return in.Data, nil
	}
	return picture.DrawJSON(in.Picture)
}

// addHTML gives o an HTML part with the same content as its text: the
// paragraphs as paragraphs, preformatted text (records, tables) as such,
// and each board of d's games as a PNG picture, seen from the
// recipient's seat with the cells of the last ply outlined, with alt
// text. The text must be final (redacted) when it is called.
func (s *session) addHTML(o *archive.Outgoing, d *draft) {
	if s.r.opts.TextMail {
		return
	}
	if p, err := s.player(d.to.Addr); err == nil && p.Mail == archive.MailText {
		return // the reader chose text (mail text)
	}
	body, foot := o.Text, ""
	if i := strings.LastIndex(body, "\n-- \n"); i >= 0 {
		body, foot = body[:i], body[i+len("\n-- \n"):]
	} else if rest, ok := strings.CutPrefix(body, "-- \n"); ok {
		body, foot = "", rest
	}
	var b strings.Builder
	b.Grow(len(o.Text)*2 + len(htmlHead) + 512)
	b.WriteString(htmlHead)
	for _, g := range d.blocks {
		if g == nil || g.b == nil || g.Record == "" {
			continue
		}
		lo, ok := g.state().(engine.Layouter)
		if !ok {
			continue
		}
		seat := g.seatOf(d.to.Addr)
		board := strings.TrimRight(g.state().Render(seat), "\n")
		i := strings.Index(body, board)
		if i < 0 {
			continue
		}
		s.htmlText(&b, body[:i])
		body = body[i+len(board):]
		l := lo.Layout(seat)
		opts := &picture.Options{Title: fmt.Sprintf("Game #%d", g.ID)}
		if p := g.line().Parent(); p != nil {
			if pl, ok := p.State().(engine.Layouter); ok {
				opts.Marked = picture.Changed(pl.Layout(seat), l)
			}
		}
		w, h, _ := picture.PNGSize(l, 0)
		if w <= 0 || h <= 0 || w > picture.MaxPixels || h > picture.MaxPixels {
			// a board too large to draw: the text part still shows it
			s.r.log.Error("board picture not drawn", "game", g.ID, "width", w, "height", h)
			continue
		}
		// stored as what it is drawn from, and drawn as it is sent
		// (Draw): off the one path every change is committed on, which
		// writes the binary form in a few microseconds
		drawing, err := (&picture.Drawing{Layout: l, Options: opts}).JSON()
		if err != nil {
			s.r.log.Error("board picture not kept", "game", g.ID, "err", err)
			continue
		}
		cid := fmt.Sprintf("board%d.%d.%s", len(o.Inline)+1, g.ID, o.MessageID)
		o.Inline = append(o.Inline, archive.Inline{ContentID: cid, ContentType: "image/png", Filename: fmt.Sprintf("game-%d-ply-%d.png", g.ID, g.plies()), Picture: drawing})
		alt := fmt.Sprintf("Board of game #%d after ply %d. %s", g.ID, g.plies(), picture.Describe(l))
		if len(opts.Marked) > 0 {
			alt += " Last ply on " + strings.Join(opts.Marked, ", ") + "."
		}
		show := min(w, imgCap)
		fmt.Fprintf(&b, `<div class="board" style="background:#ffffff;padding:4px;margin:0 0 12px 0;border-radius:4px"><img src="cid:%s" alt="%s" title="%s" width="%d" style="display:block;width:100%%;max-width:%dpx;height:auto;border:0;margin:0 auto"></div>`+"\n",
			html.EscapeString(cid), html.EscapeString(alt), html.EscapeString(opts.Title), show, show)
		if l.Status != "" {
			// the board's last line, as the text part has it
			fmt.Fprintf(&b, `<p style="%s">%s</p>`+"\n", pStyle, html.EscapeString(l.Status))
		}
		if len(l.Sides) > 2 {
			writeLegend(&b, g, l, seat)
		}
	}
	s.htmlText(&b, body)
	if foot != "" {
		fmt.Fprintf(&b, `<p class="foot" style="%s">%s</p>`+"\n", footStyle, linkify(strings.Join(strings.Fields(foot), " ")))
	}
	b.WriteString("</div></body></html>\n")
	o.HTML = b.String()
}

// writeLegend writes the legend of a picture of a game of more than two
// seats as HTML text beside it, in the reader's own font (the picture's
// lines under the board show small on a phone): a line per seat with its
// colour, its letter and colour name, its player and what it holds off
// the board, the reader's own seat (view) marked.
func writeLegend(b *strings.Builder, g *game, l *engine.Layout, view int) {
	b.WriteString(`<div class="legend" style="margin:0 0 12px 0;font-size:15px;line-height:1.5">` + "\n")
	for i, side := range l.Sides {
		colour := ""
		if i < len(l.Colours) {
			colour = " " + l.Colours[i]
		}
		who := ""
		if i < len(g.Seats) {
			if view < 0 {
				who = g.publicName(i) // to a watcher: no addresses
			} else {
				who = g.name(i)
			}
			if i == view {
				who += " (you)"
			}
			who = " " + who
		}
		held := picture.Holdings(l, i)
		if held != "" {
			held = ": " + held
		}
		fmt.Fprintf(b, `<div><span style="display:inline-block;width:14px;height:14px;margin:0 6px 0 0;vertical-align:-2px;border:1px solid #111111;background:%s"></span><b>%s</b>%s%s%s</div>`+"\n",
			picture.SideColour(l, i)[0], html.EscapeString(side), html.EscapeString(colour), html.EscapeString(who), html.EscapeString(held))
	}
	b.WriteString("</div>\n")
}

// mailCmd: mail text|html chooses how the sender's mail comes, from this
// reply on.
func (s *session) mailCmd(c *cmd) error {
	const form = "mail text (plain text only) or mail html (text and HTML, the board as a picture)"
	choice := strings.ToLower(c.rest)
	if choice != archive.MailText && choice != archive.MailHTML {
		return mistake(nil, form, "%q is neither text nor html", c.rest)
	}
	p, err := s.ownPlayer()
	if err != nil {
		return err
	}
	p.Mail = choice
	s.touchPlayer(p)
	s.mine.label = "mail"
	if choice == archive.MailText {
		s.mine.add("Your mail comes as plain text only from now on. Send \"mail html\" to have the board as a picture too.")
	} else {
		s.mine.add("Your mail comes as text and HTML from now on, the board as a picture in the HTML part. Send \"mail text\" for plain text only.")
	}
	return nil
}

// htmlText writes text as paragraphs: a paragraph whose lines are indented
// or aligned in columns is preformatted, any other is prose, its lines
// joined.
func (s *session) htmlText(b *strings.Builder, text string) {
	for _, p := range strings.Split(text, "\n\n") {
		p = strings.Trim(p, "\n")
		if strings.TrimSpace(p) == "" {
			continue
		}
		if preformattedText(p) {
			fmt.Fprintf(b, `<pre style="%s">%s</pre>`+"\n", preStyle, linkify(p))
			continue
		}
		fmt.Fprintf(b, `<p style="%s">%s</p>`+"\n", pStyle, linkify(strings.Join(strings.Fields(p), " ")))
	}
}

// preformattedText reports whether a paragraph is laid out by its lines:
// a line indented, with a run of spaces inside it, or a record's tag pair
// ([Event "..."]).
func preformattedText(p string) bool {
	for _, l := range strings.Split(p, "\n") {
		if strings.HasPrefix(l, " ") || strings.Contains(strings.TrimRight(l, " "), "   ") ||
			strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]") {
			return true
		}
	}
	return false
}

// linkify escapes text and links the web addresses in it.
func linkify(text string) string {
	var b strings.Builder
	last := 0
	for _, m := range urlRE.FindAllStringIndex(text, -1) {
		b.WriteString(html.EscapeString(text[last:m[0]]))
		u := html.EscapeString(text[m[0]:m[1]])
		fmt.Fprintf(&b, `<a href="%s">%s</a>`, u, u)
		last = m[1]
	}
	b.WriteString(html.EscapeString(text[last:]))
	return b.String()
}
