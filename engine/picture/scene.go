// Package picture draws a position, as described by an engine.Layout, as
// SVG for the web and as PNG for mail. Both are drawings of one scene: the
// cells, marks, pieces, labels and holdings are laid out once (scene), and
// each format only writes or rasterises its shapes, so no board is drawn
// twice.
package picture

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"pbem/engine"
)

// unit is the size of one cell in scene units (the SVG's user units).
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

// SideColour returns the fill and the ink (for letters on it) of side's
// pieces, as "#rrggbb" colours.
func SideColour(l *engine.Layout, side int) [2]string { return sideColour(l, side) }

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

// markColour outlines the cells of the last move.
const markColour = "#1f6fd1"

// Text styles: size, weight, colour and anchor of each class of text.
type textStyle struct {
	size  float64
	bold  bool
	fill  string
	start bool // anchored at its start rather than its middle
}

var textStyles = map[string]textStyle{
	"lbl": {14, false, "#555", false},
	"h":   {10, false, "#333", true},
	"p":   {13, true, "", false},
	"cnt": {12, false, "#222", true},
}

// ReadWidth is the narrowest a picture is expected to be shown (a
// phone's mail column, in CSS pixels), and MinLabel the smallest its
// coordinates may be there, in pixels of font size.
const (
	ReadWidth = 390
	MinLabel  = 9
)

// LabelSize is the font size of the coordinates of l's picture, in scene
// units: the style's 14, or more on a board so wide that 14 would show
// smaller than MinLabel at ReadWidth (the scene is W units wide, shown
// ReadWidth pixels wide: a unit is ReadWidth/W pixels). Rounded up to a
// whole unit, and at most half a cell, the room a label has beside the
// board; no board the games have needs that much (the 19-file octagon
// needs 24).
func LabelSize(l *engine.Layout) float64 {
	w := (l.Width + 2) * unit
	return min(unit/2, max(textStyles["lbl"].size, math.Ceil(MinLabel*w/ReadWidth)))
}

// Shape kinds.
const (
	openGroup = iota
	closeGroup
	polygon // Pts, closed
	circle  // X, Y, R
	text    // Text at X, Y in Class's style
)

// shape is one element of a scene.
type shape struct {
	Kind int
	// Group is the SVG element of an openGroup: its tag and attributes.
	Group string
	// SVG is how a polygon is written ("rect", "polygon", "path"); Path
	// its path data, for "path".
	SVG  string
	Pts  []vec
	X, Y float64
	R    float64
	// Fill and Stroke are "#rgb" or "#rrggbb" colours, "" for none.
	Fill, Stroke string
	Width        float64 // stroke width
	// KeepWidth writes the stroke width in SVG even when it is 1.
	KeepWidth bool
	// D is the SVG path data of a "path", when not written from Pts.
	D     string
	Dash  bool
	Text  string
	Class string  // text style
	Size  float64 // text size when not the style's
	Attrs string  // more SVG attributes (class of a shape, data-*)
	// Fore is set on what changes from position to position (pieces,
	// marks, holdings); the rest is the board, the same for every
	// position of a game seen from one side.
	Fore bool
	// Run numbers (from 1) the Fore shapes of one cell or one line of
	// holdings: drawn together within a small rectangle, so that the
	// pixels they leave can be kept and copied (see raster.run). 0: none.
	Run int32
}

type vec struct{ X, Y float64 }

// scene is a drawing of a layout in scene units: the board occupies
// (-unit, -unit) to (MaxX, MaxY).
type scene struct {
	Shapes     []shape
	fore       bool  // shapes added now are Fore
	run        int32 // the Run of the Fore shapes added now
	runs       int32 // the Runs numbered
	raster     bool  // drawn to pixels: no SVG groups, no attributes
	MinX, MinY float64
	W, H       float64
	// vecs holds the points of the shapes, a slice each
	vecs []vec
	// key holds what boardKey hashes
	key []byte
}

// keep copies pts into sc.vecs and returns the copy, which an append
// cannot overwrite.
func (sc *scene) keep(pts ...vec) []vec {
	n := len(sc.vecs)
	if n+len(pts) > cap(sc.vecs) {
		sc.vecs, n = make([]vec, 0, max(256, 2*cap(sc.vecs), len(pts))), 0
	}
	sc.vecs = append(sc.vecs, pts...)
	return sc.vecs[n:len(sc.vecs):len(sc.vecs)]
}

// Options say what a picture shows beyond the layout.
type Options struct {
	// Title names the picture (SVG title; the start of a PNG's alt text).
	Title string
	// Marked are the cells to outline: those the last move changed.
	Marked []string
}

// build lays out l.
// A scene for raster has no SVG groups nor attributes.
func build(l *engine.Layout, o *Options, raster bool) *scene {
	return buildInto(new(scene), l, o, raster)
}

// buildInto is build reusing sc's memory.
func buildInto(sc *scene, l *engine.Layout, o *Options, raster bool) *scene {
	sc.Shapes = slices.Grow(sc.Shapes[:0], 8+6*len(l.Cells)+2*len(l.Labels))
	sc.vecs = sc.vecs[:0]
	sc.fore, sc.raster, sc.run, sc.runs = false, raster, 0, 0
	sc.MinX, sc.MinY = -unit, -unit
	sc.W = (l.Width + 2) * unit
	sc.H = (l.Height+2)*unit + holdingsHeight(l)
	maxH := 0
	for _, c := range l.Cells {
		maxH = max(maxH, c.Height)
	}
	hasHeight := maxH > 0
	var marked []string
	if o != nil {
		marked = o.Marked
	}
	for i := range l.Cells {
		c := &l.Cells[i]
		isMarked := false
		for _, m := range marked {
			if m == c.Name {
				isMarked = true
			}
		}
		sc.cell(l, c, hasHeight, maxH, isMarked)
	}
	lbl := LabelSize(l)
	if lbl == textStyles["lbl"].size {
		lbl = 0 // the style's
	}
	for _, lb := range l.Labels {
		sc.add(shape{Kind: text, Class: "lbl", X: lb.X * unit, Y: lb.Y * unit, Text: lb.Text, Size: lbl})
	}
	sc.fore = true
	sc.holdings(l, (l.Height+1)*unit)
	return sc
}

func (sc *scene) add(s shape) {
	s.Fore = sc.fore
	if sc.fore {
		s.Run = sc.run
	}
	if sc.raster {
		s.Attrs = ""
	}
	sc.Shapes = append(sc.Shapes, s)
}

// open starts an SVG group, format's verbs the values of a escaped; none
// for raster (and nothing formatted).
func (sc *scene) open(format string, a ...string) {
	if sc.raster {
		return
	}
	args := make([]any, len(a))
	for i, v := range a {
		args[i] = esc(v)
	}
	sc.add(shape{Kind: openGroup, Group: fmt.Sprintf(format, args...)})
}

func (sc *scene) close() {
	if !sc.raster {
		sc.add(shape{Kind: closeGroup})
	}
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

// cellShape is the outline of a cell centred on cx, cy, shrunk by in.
func (sc *scene) cellShape(c *engine.Cell, cx, cy, in float64) (string, []vec) {
	if c.Shape == engine.HexCell {
		r := unit/math.Sqrt(3) - in*2/math.Sqrt(3)
		var pts [6]vec
		for k := range 6 {
			a := math.Pi/6 + float64(k)*math.Pi/3
			pts[k] = vec{cx + r*math.Cos(a), cy + r*math.Sin(a)}
		}
		return "polygon", sc.keep(pts[:]...)
	}
	h := unit/2 - in
	return "rect", sc.keep(vec{cx - h, cy - h}, vec{cx + h, cy - h}, vec{cx + h, cy + h}, vec{cx - h, cy + h})
}

func (sc *scene) cell(l *engine.Layout, c *engine.Cell, hasHeight bool, maxH int, marked bool) {
	cx, cy := c.X*unit, c.Y*unit
	stroke, width := "#8a7a5a", 1.0
	if c.Mark == "home" && c.Owner >= 0 {
		stroke, width = sideColour(l, c.Owner)[0], 3
	}
	if c.Mark == "temple" {
		stroke, width = "#b8860b", 4
	}
	sc.open(`<g class="cell" data-cell="%s">`, c.Name)
	sc.runs++
	sc.run = sc.runs
	kind, pts := sc.cellShape(c, cx, cy, 0)
	sc.add(shape{Kind: polygon, SVG: kind, Pts: pts, Fill: cellFill(c, maxH), Stroke: stroke, Width: width, KeepWidth: true})
	if marked {
		kind, pts := sc.cellShape(c, cx, cy, 3)
		sc.fore = true
		sc.add(shape{Kind: polygon, SVG: kind, Pts: pts, Stroke: markColour, Width: 4, Attrs: ` class="mark"`})
		sc.fore = false
	}
	if hasHeight {
		sc.add(shape{Kind: text, Class: "h", X: cx - unit/2 + 3, Y: cy - unit/2 + 8, Text: itoa(c.Height)})
	}
	if c.Mark == "castle" && c.Owner >= 0 {
		// where a castle stands is chosen in each game: drawn over the
		// background, which then serves every game on the board
		sc.fore = true
		col := sideColour(l, c.Owner)
		// a crenellated tower
		x0, y0 := cx-16, cy-14
		tower := sc.keep(vec{0, 0}, vec{6, 0}, vec{6, 6}, vec{13, 6}, vec{13, 0}, vec{19, 0}, vec{19, 6}, vec{26, 6}, vec{26, 0}, vec{32, 0}, vec{32, 30}, vec{0, 30})
		for i := range tower {
			tower[i].X += x0
			tower[i].Y += y0
		}
		sc.add(shape{Kind: polygon, SVG: "path", Pts: tower, Fill: col[0], Stroke: "#222", Width: 1, Attrs: ` class="castle"`,
			D: "M" + f(x0) + " " + f(y0) + "h6v6h7v-6h6v6h7v-6h6v30h-32z"})
		sc.add(shape{Kind: text, Class: "p", X: cx, Y: cy + 6, Fill: col[1], Text: strings.ToUpper(l.Sides[c.Owner][:1])})
	}
	sc.fore = true
	sc.pieces(l, c, cx, cy)
	sc.fore, sc.run = false, 0
	sc.close()
}

// pieces lays out the pieces of a cell: Icehouse pyramids (Size > 0) as
// triangles, a stack one above the other and a nest one inside the other;
// other pieces as discs with their letter.
func (sc *scene) pieces(l *engine.Layout, c *engine.Cell, cx, cy float64) {
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
			sc.open(`<g class="piece" data-cell="%s" data-piece="%s">`, c.Name, p.Letter)
			sc.add(shape{Kind: circle, X: x, Y: cy + 3, R: 15, Fill: col[0], Stroke: "#111", Width: 1})
			sc.add(shape{Kind: text, Class: "p", X: x, Y: cy + 3, Fill: col[1], Text: p.Letter})
			sc.close()
		}
	case c.Stacked:
		// a stack, bottom first, drawn bottom up
		band := float64(unit-8) / float64(n)
		for i, p := range c.Pieces {
			col := sideColour(l, p.Side)
			half := 6 + 5*float64(p.Size)
			yb := cy + unit/2 - 4 - float64(i)*band
			sc.open(`<g class="piece" data-cell="%s" data-piece="%s">`, c.Name, p.Letter)
			sc.add(shape{Kind: polygon, SVG: "path", Pts: sc.keep(vec{cx - half, yb}, vec{cx + half, yb}, vec{cx + half*0.6, yb - band + 1}, vec{cx - half*0.6, yb - band + 1}),
				Fill: col[0], Stroke: "#111", Width: 1})
			sc.add(shape{Kind: text, Class: "p", X: cx, Y: yb - band/2, Fill: col[1], Size: min(13, band-1), Text: p.Letter})
			sc.close()
		}
	default:
		// free pieces side by side; a nest (a free piece with nested ones
		// after it) drawn one inside the other
		// the groups as runs of c.Pieces, by where each starts
		var starts [16]int
		groups := starts[:0]
		for i, p := range c.Pieces {
			if p.State != "nested" || len(groups) == 0 {
				groups = append(groups, i)
			}
		}
		slot := float64(unit-8) / float64(len(groups))
		for gi, start := range groups {
			end := len(c.Pieces)
			if gi+1 < len(groups) {
				end = groups[gi+1]
			}
			g := c.Pieces[start:end]
			x := cx - float64(unit-8)/2 + slot*(float64(gi)+0.5)
			for _, p := range g {
				col := sideColour(l, p.Side)
				hgt := 10 + 8*float64(p.Size)
				half := hgt * 0.55 * min(1, slot/22)
				yb := cy + 12
				s := shape{Kind: polygon, SVG: "path", Pts: sc.keep(vec{x - half, yb}, vec{x + half, yb}, vec{x, yb - hgt}), Fill: col[0], Stroke: "#111", Width: 1}
				if p.State == "stack-top" {
					s.Dash, s.Width = true, 2
				}
				sc.open(`<g class="piece" data-cell="%s" data-piece="%s">`, c.Name, p.Letter)
				sc.add(s)
				if len(g) == 1 || p.State != "nested" {
					sc.add(shape{Kind: text, Class: "p", X: x, Y: yb - 5, Fill: col[1], Size: 10, Text: p.Letter})
				}
				sc.close()
			}
		}
	}
	// captured pieces under a capture stack: a row of small bars
	if len(c.Under) > 0 {
		wd := math.Min(6, float64(unit-10)/float64(len(c.Under)))
		x0 := cx - wd*float64(len(c.Under))/2
		for i, p := range c.Under {
			col := sideColour(l, p.Side)
			x, y, h := x0+float64(i)*wd, cy+14, 3+2*float64(p.Size)
			sc.add(shape{Kind: polygon, SVG: "rect", Pts: sc.keep(vec{x, y}, vec{x + wd, y}, vec{x + wd, y + h}, vec{x, y + h}), Fill: col[0], Stroke: "#111", Width: 0.5,
				Attrs: sc.attrs(` class="under" data-cell="%s" data-piece="%s"`, c.Name, p.Letter)})
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

// holdings lays out one line per side under the board: its colour, its
// name and its holdings (pieces named by letter, counts as numbers).
func (sc *scene) holdings(l *engine.Layout, y0 float64) {
	if len(l.Holdings) == 0 {
		return
	}
	for side := range l.Sides {
		y := y0 + float64(side)*28 + 14
		col := sideColour(l, side)
		x := float64(-unit) + 10
		sc.open(`<g class="holdings" data-side="%s">`, l.Sides[side])
		sc.runs++
		sc.run = sc.runs
		sc.add(shape{Kind: polygon, SVG: "rect", Pts: sc.keep(vec{x, y - 8}, vec{x + 16, y - 8}, vec{x + 16, y + 8}, vec{x, y + 8}), Fill: col[0], Stroke: "#111", Width: 1})
		x += 22
		sc.add(shape{Kind: text, Class: "cnt", X: x, Y: y, Text: l.Sides[side] + ": " + Holdings(l, side)})
		for _, h := range l.Holdings {
			if h.Side != side {
				continue
			}
			for _, p := range h.Pieces {
				sc.open(`<g class="piece held" data-cell="%s" data-piece="%s">`, h.Name, p.Letter)
				sc.close()
			}
		}
		sc.close()
	}
}

// Holdings says what side holds off the board, as the picture's line
// for the side writes it after the side's name: each holding named, with
// its pieces by letter or its count, "; " between them.
func Holdings(l *engine.Layout, side int) string {
	var parts []string
	for _, h := range l.Holdings {
		if h.Side != side {
			continue
		}
		if len(h.Pieces) == 0 {
			parts = append(parts, fmt.Sprintf("%s %d", h.Name, h.Count))
			continue
		}
		var ps []string
		for _, p := range h.Pieces {
			ps = append(ps, p.Letter)
		}
		parts = append(parts, h.Name+" "+strings.Join(ps, " "))
	}
	return strings.Join(parts, "; ")
}

// attrs formats SVG attributes from escaped values; none for raster.
func (sc *scene) attrs(format, cell, piece string) string {
	if sc.raster {
		return ""
	}
	return fmt.Sprintf(format, esc(cell), esc(piece))
}

func itoa(n int) string { return fmt.Sprint(n) }
