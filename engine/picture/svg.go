package picture

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"

	"pbem/engine"
)

// f writes a coordinate in user units with at most one decimal.
func f(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

// esc escapes text for XML content and attribute values.
func esc(s string) string { return html.EscapeString(s) }

// SVG draws a layout as a standalone SVG document with a title and a text
// description (Describe). Every piece is a group of class "piece" whose
// data-cell and data-piece attributes name its cell (or holding) and
// letter; the cells of o.Marked carry an outline of class "mark".
func SVG(l *engine.Layout, o *Options) string {
	sc := build(l, o, false)
	title := ""
	if o != nil {
		title = o.Title
	}
	var b strings.Builder
	b.Grow(8192 + 400*len(l.Cells))
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="%s %s %s %s" width="%s" height="%s" role="img" aria-labelledby="svg-title svg-desc" class="board">`,
		f(sc.MinX), f(sc.MinY), f(sc.W), f(sc.H), f(sc.W), f(sc.H))
	fmt.Fprintf(&b, "<title id=\"svg-title\">%s</title>\n<desc id=\"svg-desc\">%s</desc>\n", esc(title), esc(Describe(l)))
	b.WriteString(`<style>text{font-family:sans-serif;text-anchor:middle;dominant-baseline:central}.lbl{font-size:14px;fill:#555}.h{font-size:10px;fill:#333;text-anchor:start}.p{font-size:13px;font-weight:bold}.cnt{font-size:12px;text-anchor:start;fill:#222}</style>` + "\n")
	depth := 0
	for i := range sc.Shapes {
		s := &sc.Shapes[i]
		switch s.Kind {
		case openGroup:
			if i+1 < len(sc.Shapes) && sc.Shapes[i+1].Kind == closeGroup {
				// an empty group closes itself
				b.WriteString(strings.TrimSuffix(s.Group, ">") + "/>")
				sc.Shapes[i+1].Kind = -1
				continue
			}
			b.WriteString(s.Group)
			depth++
		case closeGroup:
			b.WriteString("</g>")
			if depth--; depth == 0 {
				b.WriteByte('\n')
			}
		case polygon:
			writePolygon(&b, s)
		case circle:
			fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="%s"`, f(s.X), f(s.Y), f(s.R))
			paint(&b, s)
		case text:
			fmt.Fprintf(&b, `<text class="%s" x="%s" y="%s"`, s.Class, f(s.X), f(s.Y))
			if s.Fill != "" {
				fmt.Fprintf(&b, ` fill="%s"`, s.Fill)
			}
			if s.Size != 0 {
				// a style, which the class's rule cannot override as
				// it does a font-size attribute
				fmt.Fprintf(&b, ` style="font-size:%spx"`, f(s.Size))
			}
			fmt.Fprintf(&b, ">%s</text>", esc(s.Text))
			if depth == 0 && (i+1 == len(sc.Shapes) || sc.Shapes[i+1].Kind != text) {
				b.WriteByte('\n')
			}
		}
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func writePolygon(b *strings.Builder, s *shape) {
	switch s.SVG {
	case "rect":
		x0, y0, x1, y1 := bounds(s.Pts)
		fmt.Fprintf(b, `<rect%s x="%s" y="%s" width="%s" height="%s"`, s.Attrs, f(x0), f(y0), f(x1-x0), f(y1-y0))
	case "polygon":
		b.WriteString(`<polygon` + s.Attrs + ` points="`)
		for i, p := range s.Pts {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(f(p.X) + "," + f(p.Y))
		}
		b.WriteByte('"')
	default:
		b.WriteString(`<path` + s.Attrs + ` d="`)
		if s.D != "" {
			b.WriteString(s.D + `"`)
			break
		}
		for i, p := range s.Pts {
			if i == 0 {
				b.WriteString("M")
			} else {
				b.WriteString("L")
			}
			b.WriteString(f(p.X) + " " + f(p.Y))
		}
		b.WriteString(`z"`)
	}
	paint(b, s)
}

func paint(b *strings.Builder, s *shape) {
	fill := s.Fill
	if fill == "" {
		fill = "none"
	}
	fmt.Fprintf(b, ` fill="%s"`, fill)
	if s.Stroke != "" {
		fmt.Fprintf(b, ` stroke="%s"`, s.Stroke)
		if s.Width != 1 || s.KeepWidth {
			fmt.Fprintf(b, ` stroke-width="%s"`, f(s.Width))
		}
	}
	if s.Dash {
		b.WriteString(` stroke-dasharray="3 2"`)
	}
	b.WriteString("/>")
}

func bounds(pts []vec) (x0, y0, x1, y1 float64) {
	x0, y0, x1, y1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range pts {
		x0, y0, x1, y1 = min(x0, p.X), min(y0, p.Y), max(x1, p.X), max(y1, p.Y)
	}
	return
}

// Describe writes a layout as text, for the SVG's description and the
// PNG's alt text: whose turn, every occupied cell with its pieces (and
// height), every holding.
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

// Changed names the cells whose contents differ between two layouts of the
// same board seen from the same side: the cells a move changed, to pass
// as Options.Marked.
func Changed(before, after *engine.Layout) []string {
	if before == nil || after == nil {
		return nil
	}
	var out []string
	for i := range after.Cells {
		a := &after.Cells[i]
		b := before.Cell(a.Name)
		if b == nil || !samePieces(a.Pieces, b.Pieces) || !samePieces(a.Under, b.Under) || a.Height != b.Height {
			out = append(out, a.Name)
		}
	}
	return out
}

func samePieces(a, b []engine.Piece) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
