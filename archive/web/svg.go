package web

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"

	"pbem/engine"
)

// unit is the size of one cell in SVG user units.
const unit = 48

// palette gives the fill and ink of a side's colour name.
var palette = map[string][2]string{
	"white":  {"#f4f1e8", "#222"},
	"black":  {"#2b2b2b", "#fff"},
	"red":    {"#c8372d", "#fff"},
	"gold":   {"#e0b22e", "#222"},
	"yellow": {"#f2d33a", "#222"},
	"green":  {"#3c9a4a", "#fff"},
	"blue":   {"#3465b8", "#fff"},
	"orange": {"#ee8a2a", "#222"},
	"purple": {"#7d4aa8", "#fff"},
}

// defaultColours are used for sides whose layout names no colour.
var defaultColours = []string{"white", "black", "red", "yellow", "green", "blue", "orange", "purple"}

func sideColour(l *engine.Layout, side int) [2]string {
	name := ""
	if side >= 0 && side < len(l.Colours) {
		name = l.Colours[side]
	}
	if name == "" && side >= 0 && side < len(defaultColours) {
		name = defaultColours[side]
	}
	if c, ok := palette[name]; ok {
		return c
	}
	return [2]string{"#999", "#000"}
}

// f writes a coordinate in user units with at most one decimal.
func f(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

// esc escapes text for XML content and attribute values.
func esc(s string) string { return html.EscapeString(s) }

// SVG draws a layout as a standalone SVG document with a title and a text
// description. Every piece is a group of class "piece" whose data-cell and
// data-piece attributes name its cell (or holding) and letter.
func SVG(l *engine.Layout, title string) string {
	var b strings.Builder
	b.Grow(8192 + 400*len(l.Cells))
	w, h := (l.Width+2)*unit, (l.Height+2)*unit
	hold := holdingsHeight(l)
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="%s %s %s %s" width="%s" height="%s" role="img" aria-labelledby="svg-title svg-desc" class="board">`,
		f(-unit), f(-unit), f(w), f(h+hold), f(w), f(h+hold))
	fmt.Fprintf(&b, "<title id=\"svg-title\">%s</title>\n<desc id=\"svg-desc\">%s</desc>\n", esc(title), esc(Describe(l)))
	b.WriteString(`<style>text{font-family:sans-serif;text-anchor:middle;dominant-baseline:central}.lbl{font-size:14px;fill:#555}.h{font-size:10px;fill:#333;text-anchor:start}.p{font-size:13px;font-weight:bold}.cnt{font-size:12px;text-anchor:start;fill:#222}</style>` + "\n")
	hasHeight := false
	maxH := 0
	for _, c := range l.Cells {
		if c.Height > 0 {
			hasHeight = true
		}
		maxH = max(maxH, c.Height)
	}
	for i := range l.Cells {
		drawCell(&b, l, &l.Cells[i], hasHeight, maxH)
	}
	for _, lb := range l.Labels {
		fmt.Fprintf(&b, `<text class="lbl" x="%s" y="%s">%s</text>`, f(lb.X*unit), f(lb.Y*unit), esc(lb.Text))
	}
	b.WriteByte('\n')
	drawHoldings(&b, l, (l.Height+1)*unit)
	b.WriteString("</svg>\n")
	return b.String()
}

// cellFill shades a cell by its height: terrain and tiers step from light
// to dark.
func cellFill(c *engine.Cell, maxH int) string {
	if maxH == 0 {
		if c.Shape == engine.HexCell {
			return "#efe6d2"
		}
		// a chequered board
		if (int(math.Floor(c.X))+int(math.Floor(c.Y)))%2 == 0 {
			return "#efe6d2"
		}
		return "#d9c9a6"
	}
	t := float64(c.Height) / float64(maxH)
	r, g, bl := 236-int(t*110), 228-int(t*100), 200-int(t*120)
	return fmt.Sprintf("#%02x%02x%02x", r, g, bl)
}

func drawCell(b *strings.Builder, l *engine.Layout, c *engine.Cell, hasHeight bool, maxH int) {
	cx, cy := c.X*unit, c.Y*unit
	stroke, width := "#8a7a5a", "1"
	if c.Mark == "home" && c.Owner >= 0 {
		stroke, width = sideColour(l, c.Owner)[0], "3"
	}
	if c.Mark == "temple" {
		stroke, width = "#b8860b", "4"
	}
	fmt.Fprintf(b, `<g class="cell" data-cell="%s">`, esc(c.Name))
	switch c.Shape {
	case engine.HexCell:
		r := unit / math.Sqrt(3)
		var pts []string
		for k := range 6 {
			a := math.Pi/6 + float64(k)*math.Pi/3
			pts = append(pts, f(cx+r*math.Cos(a))+","+f(cy+r*math.Sin(a)))
		}
		fmt.Fprintf(b, `<polygon points="%s" fill="%s" stroke="%s" stroke-width="%s"/>`, strings.Join(pts, " "), cellFill(c, maxH), stroke, width)
	default:
		fmt.Fprintf(b, `<rect x="%s" y="%s" width="%d" height="%d" fill="%s" stroke="%s" stroke-width="%s"/>`,
			f(cx-unit/2), f(cy-unit/2), unit, unit, cellFill(c, maxH), stroke, width)
	}
	if hasHeight {
		fmt.Fprintf(b, `<text class="h" x="%s" y="%s">%d</text>`, f(cx-unit/2+3), f(cy-unit/2+8), c.Height)
	}
	if c.Mark == "castle" && c.Owner >= 0 {
		col := sideColour(l, c.Owner)
		// a crenellated tower
		x0, y0 := cx-16, cy-14
		fmt.Fprintf(b, `<path class="castle" d="M%s %sh6v6h7v-6h6v6h7v-6h6v30h-32z" fill="%s" stroke="#222"/>`, f(x0), f(y0), col[0])
		fmt.Fprintf(b, `<text class="p" x="%s" y="%s" fill="%s">%s</text>`, f(cx), f(cy+6), col[1], esc(strings.ToUpper(l.Sides[c.Owner][:1])))
	}
	drawPieces(b, l, c, cx, cy)
	b.WriteString("</g>\n")
}

// drawPieces draws the pieces of a cell: Icehouse pyramids (Size > 0) as
// triangles, a stack one above the other and a nest one inside the other;
// other pieces as discs with their letter.
func drawPieces(b *strings.Builder, l *engine.Layout, c *engine.Cell, cx, cy float64) {
	n := len(c.Pieces)
	if n == 0 && len(c.Under) == 0 {
		return
	}
	pyramids := n > 0 && c.Pieces[0].Size > 0
	switch {
	case !pyramids:
		for i, p := range c.Pieces {
			col := sideColour(l, p.Side)
			x := cx + float64(i)*6
			fmt.Fprintf(b, `<g class="piece" data-cell="%s" data-piece="%s"><circle cx="%s" cy="%s" r="15" fill="%s" stroke="#111"/><text class="p" x="%s" y="%s" fill="%s">%s</text></g>`,
				esc(c.Name), esc(p.Letter), f(x), f(cy+3), col[0], f(x), f(cy+3), col[1], esc(p.Letter))
		}
	case c.Stacked:
		// a stack, bottom first, drawn bottom up
		band := float64(unit-8) / float64(n)
		for i, p := range c.Pieces {
			col := sideColour(l, p.Side)
			half := 6 + 5*float64(p.Size)
			yb := cy + unit/2 - 4 - float64(i)*band
			fmt.Fprintf(b, `<g class="piece" data-cell="%s" data-piece="%s"><path d="M%s %sL%s %sL%s %sL%s %sz" fill="%s" stroke="#111"/><text class="p" x="%s" y="%s" fill="%s" font-size="%s">%s</text></g>`,
				esc(c.Name), esc(p.Letter),
				f(cx-half), f(yb), f(cx+half), f(yb), f(cx+half*0.6), f(yb-band+1), f(cx-half*0.6), f(yb-band+1),
				col[0], f(cx), f(yb-band/2), col[1], f(min(13, band-1)), esc(p.Letter))
		}
	default:
		// free pieces side by side; a nest (a free piece with nested ones
		// after it) drawn one inside the other
		var groups [][]engine.Piece
		for _, p := range c.Pieces {
			if p.State == "nested" && len(groups) > 0 {
				groups[len(groups)-1] = append(groups[len(groups)-1], p)
				continue
			}
			groups = append(groups, []engine.Piece{p})
		}
		slot := float64(unit-8) / float64(len(groups))
		for gi, g := range groups {
			x := cx - float64(unit-8)/2 + slot*(float64(gi)+0.5)
			for _, p := range g {
				col := sideColour(l, p.Side)
				hgt := 10 + 8*float64(p.Size)
				half := hgt * 0.55 * min(1, slot/22)
				yb := cy + 12
				extra := ""
				if p.State == "stack-top" {
					extra = ` stroke-dasharray="3 2" stroke-width="2"`
				}
				fmt.Fprintf(b, `<g class="piece" data-cell="%s" data-piece="%s"><path d="M%s %sL%s %sL%s %sz" fill="%s" stroke="#111"%s/>`,
					esc(c.Name), esc(p.Letter), f(x-half), f(yb), f(x+half), f(yb), f(x), f(yb-hgt), col[0], extra)
				if len(g) == 1 || p.State != "nested" {
					fmt.Fprintf(b, `<text class="p" x="%s" y="%s" fill="%s" font-size="10">%s</text>`, f(x), f(yb-5), col[1], esc(p.Letter))
				}
				b.WriteString("</g>")
			}
		}
	}
	// captured pieces under a capture stack: a row of small bars
	if len(c.Under) > 0 {
		wd := math.Min(6, float64(unit-10)/float64(len(c.Under)))
		x0 := cx - wd*float64(len(c.Under))/2
		for i, p := range c.Under {
			col := sideColour(l, p.Side)
			fmt.Fprintf(b, `<rect class="under" data-cell="%s" data-piece="%s" x="%s" y="%s" width="%s" height="%s" fill="%s" stroke="#111" stroke-width="0.5"/>`,
				esc(c.Name), esc(p.Letter), f(x0+float64(i)*wd), f(cy+14), f(wd), f(3+2*float64(p.Size)), col[0])
		}
	}
}

// holdingsHeight is the room below the board for the holdings: a line per
// side.
func holdingsHeight(l *engine.Layout) float64 {
	if len(l.Holdings) == 0 {
		return 0
	}
	return float64(len(l.Sides))*28 + 8
}

// drawHoldings writes one line per side under the board: its colour, its
// name and its holdings (pieces drawn small, counts as numbers).
func drawHoldings(b *strings.Builder, l *engine.Layout, y0 float64) {
	if len(l.Holdings) == 0 {
		return
	}
	for side := range l.Sides {
		y := y0 + float64(side)*28 + 14
		col := sideColour(l, side)
		x := float64(-unit) + 10
		fmt.Fprintf(b, `<g class="holdings" data-side="%s"><rect x="%s" y="%s" width="16" height="16" fill="%s" stroke="#111"/>`,
			esc(l.Sides[side]), f(x), f(y-8), col[0])
		x += 22
		var text []string
		for _, h := range l.Holdings {
			if h.Side != side {
				continue
			}
			if len(h.Pieces) == 0 {
				text = append(text, fmt.Sprintf("%s %d", h.Name, h.Count))
				continue
			}
			var ps []string
			for _, p := range h.Pieces {
				ps = append(ps, p.Letter)
			}
			text = append(text, h.Name+" "+strings.Join(ps, " "))
		}
		fmt.Fprintf(b, `<text class="cnt" x="%s" y="%s">%s: %s</text>`, f(x), f(y), esc(l.Sides[side]), esc(strings.Join(text, "; ")))
		for _, h := range l.Holdings {
			if h.Side != side {
				continue
			}
			for _, p := range h.Pieces {
				fmt.Fprintf(b, `<g class="piece held" data-cell="%s" data-piece="%s"/>`, esc(h.Name), esc(p.Letter))
			}
		}
		b.WriteString("</g>\n")
	}
}

// Describe writes a layout as text for the SVG's description: whose turn,
// every occupied cell with its pieces (and height), every holding.
func Describe(l *engine.Layout) string {
	var b strings.Builder
	b.WriteString(l.Status)
	for _, c := range l.Cells {
		if len(c.Pieces) == 0 && c.Mark == "" {
			continue
		}
		b.WriteString(" ")
		b.WriteString(c.Name)
		if c.Height > 0 {
			fmt.Fprintf(&b, " (height %d)", c.Height)
		}
		if c.Mark != "" {
			b.WriteString(" " + c.Mark)
			if c.Owner >= 0 {
				b.WriteString(" of " + l.Sides[c.Owner])
			}
		}
		b.WriteString(":")
		for i, p := range c.Pieces {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %s %s", l.Sides[p.Side], p.Name)
			if p.State != "" {
				b.WriteString(" (" + p.State + ")")
			}
		}
		if len(c.Under) > 0 {
			fmt.Fprintf(&b, " over %d captured", len(c.Under))
		}
		b.WriteString(";")
	}
	for _, h := range l.Holdings {
		if h.Count == 0 {
			continue
		}
		fmt.Fprintf(&b, " %s %s %d;", l.Sides[h.Side], h.Name, h.Count)
	}
	return b.String()
}
