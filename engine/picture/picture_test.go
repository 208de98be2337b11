package picture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/flate"
	"github.com/stretchr/testify/require"

	"pbem/engine"
	"pbem/engine/castles"
	"pbem/engine/elevation"
	"pbem/engine/enginetest"
	"pbem/engine/rpp"
	"pbem/engine/ziggurat"
	"pbem/engine/ziggurat43"
)

// variants are the games and boards every drawing test covers.
var variants = []struct {
	name  string
	rules engine.Rules
	opts  engine.Options
}{
	{"ziggurat", ziggurat.Rules{}, engine.Options{}},
	{"elevation", elevation.Rules{}, engine.Options{}},
	{"ziggurat43", ziggurat43.Rules{}, engine.Options{}},
	{"castles", castles.Rules{}, engine.Options{}},
	{"rpp-square5", rpp.Rules{}, engine.Options{Players: 2}},
	{"rpp-hex5", rpp.Rules{}, engine.Options{Players: 3}},
	{"rpp-square7", rpp.Rules{}, engine.Options{Players: 4}},
	{"rpp-hex7", rpp.Rules{}, engine.Options{Players: 6}},
	{"rpp-octagon", rpp.Rules{}, engine.Options{Players: 8}},
}

// CellCentre returns the pixel at the centre of cell c in a PNG drawn with
// cells of cell pixels.
func cellCentre(l *engine.Layout, c *engine.Cell, cell int) image.Point {
	s := float64(cell) / unit
	return image.Pt(int((c.X*unit-(-unit))*s), int((c.Y*unit-(-unit))*s))
}

// occupied reports whether any pixel near the centre of c (the part of a
// cell that pieces cover and no label or outline reaches) differs from
// the cell's own colour.
func occupied(img image.Image, l *engine.Layout, c *engine.Cell, cell, maxH int) bool {
	s := float64(cell) / unit
	ctr := cellCentre(l, c, cell)
	want := parseColour(cellFill(c, maxH))
	for y := ctr.Y - int(10*s); y <= ctr.Y+int(12*s); y++ {
		for x := ctr.X - int(12*s); x <= ctr.X+int(12*s); x++ {
			if color.RGBAModel.Convert(img.At(x, y)) != want {
				return true
			}
		}
	}
	return false
}

// TestPNGShowsThePosition: for every game and board, at positions of
// random games seen from every side, the PNG decodes, has the size
// PNGSize gives, and a cell shows something over its own colour exactly
// when the layout puts a piece (or a castle) on it.
func TestPNGShowsThePosition(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			states, err := enginetest.Positions(v.rules, v.opts, 5, 2, 40)
			if err != nil {
				t.Fatal(err)
			}
			sides := len(states[0].Sides())
			for i, st := range states {
				if i%7 != 0 && i != len(states)-1 {
					continue
				}
				view := i%(sides+1) - 1
				l := st.(engine.Layouter).Layout(view)
				data, err := PNG(l, nil, 0)
				if err != nil {
					t.Fatal(err)
				}
				img, err := png.Decode(bytes.NewReader(data))
				if err != nil {
					t.Fatalf("position %d: PNG does not decode: %v", i, err)
				}
				w, h, cell := PNGSize(l, 0)
				if img.Bounds() != image.Rect(0, 0, w, h) {
					t.Errorf("bounds = %v, want %dx%d", img.Bounds(), w, h)
				}
				maxH := 0
				for _, c := range l.Cells {
					maxH = max(maxH, c.Height)
				}
				for ci := range l.Cells {
					c := &l.Cells[ci]
					want := len(c.Pieces) > 0 || c.Mark == "castle" && c.Owner >= 0
					if got := occupied(img, l, c, cell, maxH); got != want {
						t.Fatalf("position %d, view %d: cell %s drawn occupied = %v, want %v (pieces %v)\n%s", i, view, c.Name, got, want, c.Pieces, st.Render(view))
					}
				}
				// Probes tells a reader of the picture the same
				for _, p := range Probes(l, 0) {
					differs := false
					for y := p.Y - p.Half; y <= p.Y+p.Half; y++ {
						for x := p.X - p.Half; x <= p.X+p.Half; x++ {
							differs = differs || color.RGBAModel.Convert(img.At(x, y)) != parseColour(p.Empty)
						}
					}
					if differs != p.Occupied {
						t.Fatalf("position %d: probe of %s differs = %v, occupied %v", i, p.Name, differs, p.Occupied)
					}
				}
			}
		})
	}
}

// TestMarkedCells: the cells a move changed are outlined in the mark's
// colour in both drawings, and no other cell is.
func TestMarkedCells(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			states, err := enginetest.Positions(v.rules, v.opts, 9, 1, 6)
			if err != nil {
				t.Fatal(err)
			}
			// the last move that changes a cell (a pass changes none)
			var after *engine.Layout
			var marked []string
			for i := len(states) - 1; i > 0 && len(marked) == 0; i-- {
				after = states[i].(engine.Layouter).Layout(-1)
				marked = Changed(states[i-1].(engine.Layouter).Layout(-1), after)
			}
			if len(marked) == 0 {
				t.Fatal("no move changed a cell")
			}
			o := &Options{Title: "t", Marked: marked}
			if n := strings.Count(SVG(after, o), `class="mark"`); n != len(marked) {
				t.Errorf("SVG has %d marks, want %d (%v)", n, len(marked), marked)
			}
			// the pictures with and without marks differ within the
			// marked cells only, and within every one of them
			img, plain := Image(after, o, 0), Image(after, nil, 0)
			_, _, cell := PNGSize(after, 0)
			s := float64(cell) / unit
			differs := map[string]int{} // pixels by the nearest cell
			for y := plain.Rect.Min.Y; y < plain.Rect.Max.Y; y++ {
				for x := plain.Rect.Min.X; x < plain.Rect.Max.X; x++ {
					if img.RGBAAt(x, y) == plain.RGBAAt(x, y) {
						continue
					}
					// the nearest cell's centre
					best, name := math.Inf(1), ""
					for ci := range after.Cells {
						ctr := cellCentre(after, &after.Cells[ci], cell)
						if d := math.Hypot(float64(ctr.X-x), float64(ctr.Y-y)); d < best {
							best, name = d, after.Cells[ci].Name
						}
					}
					if best > unit*s {
						t.Fatalf("pixel %d,%d marked outside every cell", x, y)
					}
					differs[name]++
				}
			}
			for _, c := range after.Cells {
				// an outline's smoothed edge may reach a neighbour's pixels,
				// a row of them at most; the outline is several rows all round
				if got := differs[c.Name] > 2*cell; got != contains(marked, c.Name) {
					t.Errorf("cell %s drawn marked = %v (%d pixels), want %v", c.Name, got, differs[c.Name], contains(marked, c.Name))
				}
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// largest is the largest board of each game: the one a benchmark draws.
func largest(b *testing.B) map[string]engine.State {
	out := map[string]engine.State{}
	for _, v := range variants {
		states, err := enginetest.Positions(v.rules, v.opts, 3, 1, 30)
		if err != nil {
			b.Fatal(err)
		}
		out[v.name] = states[len(states)-1]
	}
	return out
}

// BenchmarkPNG draws and encodes the PNG of a position of each board, as a
// mail carries it.
func BenchmarkPNG(b *testing.B) {
	states := largest(b)
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			l := states[v.name].(engine.Layouter).Layout(0)
			b.ReportAllocs()
			var n int
			cpu := startCPU()
			for b.Loop() {
				data, err := PNG(l, &Options{Marked: []string{l.Cells[0].Name}}, 0)
				if err != nil {
					b.Fatal(err)
				}
				n = len(data)
			}
			cpu.report(b)
			b.ReportMetric(float64(n), "bytes")
		})
	}
}

// cpuSince is the CPU time at the start of a benchmark's loop.
type cpuSince int64

func startCPU() cpuSince { return cpuSince(cpuTime()) }

// report gives the CPU time the process used per op since c, as
// cpu-ns/op: on a machine shared with other work the time a benchmark
// waits for a CPU inflates ns/op but not cpu-ns/op.
func (c cpuSince) report(b *testing.B) {
	if now := cpuTime(); now > 0 && b.N > 0 {
		b.ReportMetric(float64(now-int64(c))/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkPNGLevels writes the PNG of a position of each board at each
// deflate level (-2: Huffman codes only), what the level of PNGs is
// chosen by: ns/op and bytes.
func BenchmarkPNGLevels(b *testing.B) {
	states := largest(b)
	defer func(l int) { pngLevel, zwriters = l, make(chan *flate.Writer, cap(drawing)) }(pngLevel)
	for _, v := range variants {
		l := states[v.name].(engine.Layouter).Layout(0)
		w, h, _ := PNGSize(l, 0)
		_, pal := render(l, &Options{Marked: []string{l.Cells[0].Name}}, 0, nil, nil, false)
		// the rows of the image data: the first filter byte, then Pix
		rows := append([]byte{0}, pal.Pix...)
		for _, level := range []int{-2, 1, 2, 3, 4, 5, 6, 9} {
			b.Run(fmt.Sprintf("%s/%d", v.name, level), func(b *testing.B) {
				pngLevel, zwriters = level, make(chan *flate.Writer, cap(drawing))
				var out bytes.Buffer
				for b.Loop() {
					out.Reset()
					if err := writePNG(&out, w, h, rows); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(out.Len()), "bytes")
			})
		}
	}
}

func ExampleChanged() {
	start, _ := ziggurat.Rules{}.Start(engine.Options{})
	next, _ := start.Apply(start.Legal()[0])
	fmt.Println(len(Changed(start.(engine.Layouter).Layout(-1), next.(engine.Layouter).Layout(-1))) > 0)
	// Output: true
}

// TestPNGOddLayouts: a layout with no cells, or one too large to draw, or
// whose holdings name a side it does not have, gives a picture or an
// error, never a panic.
func TestPNGOddLayouts(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    *engine.Layout
		ok   bool
	}{
		{"empty", &engine.Layout{}, true},
		{"one cell", &engine.Layout{Width: 1, Height: 1, Cells: []engine.Cell{{Name: "a1", X: 0.5, Y: 0.5, Shape: engine.SquareCell, Owner: -1}}}, true},
		{"huge", &engine.Layout{Width: 1000, Height: 1000}, false},
		{"unknown side", &engine.Layout{Width: 1, Height: 1, Sides: []string{"A"}, Holdings: []engine.Holding{{Side: 3, Name: "pile", Count: 2}},
			Cells: []engine.Cell{{Name: "a1", X: 0.5, Y: 0.5, Owner: 5, Mark: "castle", Pieces: []engine.Piece{{Side: 7, Letter: "X"}}}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := PNG(tc.l, nil, 0)
			if tc.ok && err != nil {
				t.Fatalf("PNG: %v", err)
			}
			if !tc.ok && err == nil && len(data) == 0 {
				t.Fatal("no picture and no error")
			}
			if err == nil {
				if _, err := png.Decode(bytes.NewReader(data)); err != nil {
					t.Fatalf("the PNG does not decode: %v", err)
				}
			} else {
				t.Log(err)
			}
		})
	}
}

// TestKeptMasksDrawTheSame: for every game and board, at positions of
// random games seen from every side, with the last move's cells marked,
// the picture drawn with kept masks and runs (drawn and then copied) has
// exactly the pixels of the one drawn through the rasteriser shape by
// shape, before and after the palette and through the PNG.
func TestKeptMasksDrawTheSame(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			states, err := enginetest.Positions(v.rules, v.opts, 7, 2, 30)
			if err != nil {
				t.Fatal(err)
			}
			sides := len(states[0].Sides())
			for i, st := range states {
				if i%3 != 0 && i != len(states)-1 {
					continue
				}
				view := i%(sides+1) - 1
				l := st.(engine.Layouter).Layout(view)
				var o *Options
				if i > 0 {
					o = &Options{Marked: Changed(states[i-1].(engine.Layouter).Layout(view), l)}
				}
				for _, cell := range []int{0, 23} {
					plain, plainPal := render(l, o, cell, nil, nil, true)
					// drawn twice: the second copies the runs the first kept
					for range 2 {
						kept, keptPal := render(l, o, cell, nil, nil, false)
						if !bytes.Equal(plain.Pix, kept.Pix) {
							t.Fatalf("position %d, view %d, cell %d: the kept masks and runs draw other pixels", i, view, cell)
						}
						if !bytes.Equal(plainPal.Pix, keptPal.Pix) {
							t.Fatalf("position %d, view %d, cell %d: the pixels mapped as drawn differ from those mapped after", i, view, cell)
						}
					}
					a, err := drawPNG(l, o, cell, true)
					if err != nil {
						t.Fatal(err)
					}
					b, err := PNG(l, o, cell)
					if err != nil {
						t.Fatal(err)
					}
					pa, err := png.Decode(bytes.NewReader(a))
					if err != nil {
						t.Fatal(err)
					}
					pb, err := png.Decode(bytes.NewReader(b))
					if err != nil {
						t.Fatal(err)
					}
					if pa.Bounds() != pb.Bounds() {
						t.Fatalf("bounds %v, want %v", pb.Bounds(), pa.Bounds())
					}
					for y := pa.Bounds().Min.Y; y < pa.Bounds().Max.Y; y++ {
						for x := pa.Bounds().Min.X; x < pa.Bounds().Max.X; x++ {
							if ca, cb := color.RGBAModel.Convert(pa.At(x, y)), color.RGBAModel.Convert(pb.At(x, y)); ca != cb {
								t.Fatalf("position %d, view %d, cell %d: pixel %d,%d is %v, want %v", i, view, cell, x, y, cb, ca)
							}
						}
					}
				}
			}
		})
	}
}

// TestPNGAsImagePNG: for every game and board, at positions of random
// games seen from every side, with the last move's cells marked, the PNG
// decodes to the pixels that image/png's encoder gives of the picture
// drawn shape by shape through the rasteriser (plain, see render): the
// written chunks and the kept masks, backgrounds and glyphs change no
// pixel of what the PNG showed before they were.
func TestPNGAsImagePNG(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			states, err := enginetest.Positions(v.rules, v.opts, 11, 2, 30)
			require.NoError(t, err)
			sides := len(states[0].Sides())
			for i, st := range states {
				if i%4 != 0 && i != len(states)-1 {
					continue
				}
				view := i%(sides+1) - 1
				l := st.(engine.Layouter).Layout(view)
				var o *Options
				if i > 0 {
					o = &Options{Title: "Game #1", Marked: Changed(states[i-1].(engine.Layouter).Layout(view), l)}
				}
				for _, cell := range []int{0, 23} {
					data, err := PNG(l, o, cell)
					require.NoError(t, err)
					_, pal := render(l, o, cell, nil, nil, true)
					var want bytes.Buffer
					require.NoError(t, (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&want, pal))
					if got, want := decodedPixels(t, data), decodedPixels(t, want.Bytes()); !bytes.Equal(got, want) {
						t.Fatalf("position %d, view %d, cell %d: the PNG decodes to other pixels than image/png's", i, view, cell)
					}
				}
			}
		})
	}
}

// decodedPixels decodes a PNG and returns its size and its pixels as
// RGBA, 4 bytes each.
func decodedPixels(t testing.TB, data []byte) []byte {
	img, err := png.Decode(bytes.NewReader(data))
	require.NoError(t, err)
	b := img.Bounds()
	out := fmt.Appendf(nil, "%v:", b)
	p, ok := img.(*image.Paletted)
	var pal [256][4]byte
	if ok {
		for i, c := range p.Palette {
			n := color.RGBAModel.Convert(c).(color.RGBA)
			pal[i] = [4]byte{n.R, n.G, n.B, n.A}
		}
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if ok {
				c := pal[p.ColorIndexAt(x, y)]
				out = append(out, c[:]...)
				continue
			}
			n := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			out = append(out, n.R, n.G, n.B, n.A)
		}
	}
	return out
}

// TestPNGConcurrent: pictures drawn at once from several goroutines, which
// share the kept masks, backgrounds and lent buffers, are the bytes each
// draws alone.
func TestPNGConcurrent(t *testing.T) {
	var layouts []*engine.Layout
	for _, v := range variants {
		states, err := enginetest.Positions(v.rules, v.opts, 5, 1, 12)
		if err != nil {
			t.Fatal(err)
		}
		for i, st := range states {
			layouts = append(layouts, st.(engine.Layouter).Layout(i%2-1))
		}
	}
	want := make([][]byte, len(layouts))
	for i, l := range layouts {
		data, err := PNG(l, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = data
	}
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			for k := range layouts {
				i := (k + g*len(layouts)/4) % len(layouts)
				data, err := PNG(layouts[i], nil, 0)
				if err == nil && !bytes.Equal(data, want[i]) {
					err = fmt.Errorf("layout %d drawn at once with others differs", i)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestBackgroundsShared: the background of a castles board is the same in
// every game, wherever its castles stand (they are drawn over it), and a
// background drawn once is not kept, so that boards that change with
// every position cannot push out those that do not.
func TestBackgroundsShared(t *testing.T) {
	states, err := enginetest.Positions(castles.Rules{}, engine.Options{}, 40, 7, 12)
	require.NoError(t, err)
	keys := map[uint64]bool{}
	castleCells := map[string]bool{}
	for _, st := range states {
		l := st.(engine.Layouter).Layout(0)
		for _, c := range l.Cells {
			if c.Mark == "castle" {
				castleCells[c.Name] = true
			}
		}
		sc := build(l, nil, true)
		w, h, cell := PNGSize(l, 0)
		keys[boardKey(sc, w, h, cell)] = true
	}
	require.Greater(t, len(castleCells), 2, "the positions have castles on different cells")
	require.Len(t, keys, 1, "one background for every castles position seen from one seat")

	backgrounds.Lock()
	backgrounds.m, backgrounds.seen, backgrounds.bytes = nil, nil, 0
	backgrounds.Unlock()
	l := states[0].(engine.Layouter).Layout(1)
	kept := func() int {
		backgrounds.Lock()
		defer backgrounds.Unlock()
		return len(backgrounds.m)
	}
	_, err = PNG(l, nil, 0)
	require.NoError(t, err)
	require.Equal(t, 0, kept(), "a background drawn once is not kept")
	first, err := PNG(l, nil, 0)
	require.NoError(t, err)
	require.Equal(t, 1, kept(), "a background drawn twice is kept")
	again, err := PNG(l, nil, 0)
	require.NoError(t, err)
	require.Equal(t, first, again, "a kept background draws the same bytes")
}

// TestDrawingKeepsThePicture: a Drawing stored as JSON and drawn later
// gives the bytes the layout gives drawn at once, for every board, stored
// as it is now (Drawing.JSON) or as the object earlier versions stored.
func TestDrawingKeepsThePicture(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			states, err := enginetest.Positions(v.rules, v.opts, 5, 2, 25)
			require.NoError(t, err)
			for _, st := range states {
				for seat := range len(st.Sides()) {
					l := st.(engine.Layouter).Layout(seat)
					opts := &Options{Title: "Game #1", Marked: []string{l.Cells[len(l.Cells)/2].Name}}
					now, err := PNG(l, opts, 0)
					require.NoError(t, err)
					data, err := (&Drawing{Layout: l, Options: opts}).JSON()
					require.NoError(t, err)
					later, err := DrawJSON(data)
					require.NoError(t, err)
					require.Equal(t, now, later, "seat %d", seat)
					old, err := json.Marshal(Drawing{Layout: l, Options: opts})
					require.NoError(t, err)
					later, err = DrawJSON(old)
					require.NoError(t, err)
					require.Equal(t, now, later, "seat %d, stored as an object", seat)
				}
			}
		})
	}
	_, err := DrawJSON([]byte(`{"layout":`))
	require.ErrorContains(t, err, "drawing that does not read")
	_, err = DrawJSON([]byte(`{}`))
	require.ErrorContains(t, err, "without a layout")
}

// TestRunsKept: a castles picture drawn again copies every cell's pieces
// and every line of holdings from the runs kept the first time (no run is
// drawn anew), and gives the same bytes; a position with a piece moved
// draws only the runs whose pixels changed.
func TestRunsKept(t *testing.T) {
	states, err := enginetest.Positions(castles.Rules{}, engine.Options{}, 3, 9, 12)
	require.NoError(t, err)
	count := func() int {
		runs.RLock()
		defer runs.RUnlock()
		return len(runs.m)
	}
	runs.Lock()
	runs.m, runs.bytes = nil, 0
	runs.Unlock()
	l := states[len(states)-1].(engine.Layouter).Layout(0)
	first, err := PNG(l, nil, 0)
	require.NoError(t, err)
	n := count()
	require.Positive(t, n, "the first drawing keeps its runs")
	again, err := PNG(l, nil, 0)
	require.NoError(t, err)
	require.Equal(t, first, again, "runs copied give the bytes drawn")
	require.Equal(t, n, count(), "the second drawing draws no run anew")
	prev := states[len(states)-2].(engine.Layouter).Layout(0)
	_, err = PNG(prev, nil, 0)
	require.NoError(t, err)
	// a move changes its two cells and the holdings lines at most
	require.LessOrEqual(t, count()-n, 2+len(prev.Sides), "the position before shares the runs of the cells the move left alone")
}

// TestLabelsReadableAtPhoneWidth draws every rpp board, for each player
// count it serves, and computes how tall its coordinates show when the
// picture is ReadWidth (390) CSS pixels wide: in the PNG, the font's pixel
// size over the image's width (read back from the PNG); in the SVG, the
// font size its text elements are given over the viewBox's width. Each
// must be at least MinLabel (9) pixels.
func TestLabelsReadableAtPhoneWidth(t *testing.T) {
	fontSize := regexp.MustCompile(`<text class="lbl"[^>]*?(?: style="font-size:([0-9.]+)px")?>`)
	viewBox := regexp.MustCompile(`viewBox="[-0-9.]+ [-0-9.]+ ([0-9.]+) `)
	for _, board := range rpp.BoardNames {
		r := rpp.BoardPlayers[board]
		for players := r[0]; players <= r[1]; players++ {
			t.Run(fmt.Sprintf("%s-%d", board, players), func(t *testing.T) {
				st, err := rpp.Rules{}.Start(engine.Options{Players: players, Board: board})
				require.NoError(t, err)
				l := st.(engine.Layouter).Layout(-1)
				require.NotEmpty(t, l.Labels)

				data, err := PNG(l, nil, 0)
				require.NoError(t, err)
				cfg, err := png.DecodeConfig(bytes.NewReader(data))
				require.NoError(t, err)
				_, _, cell := PNGSize(l, 0)
				var n int
				for _, sh := range build(l, nil, true).Shapes {
					if sh.Kind != text || sh.Class != "lbl" {
						continue
					}
					n++
					size := textStyles["lbl"].size
					if sh.Size != 0 {
						size = sh.Size
					}
					px := math.Round(size * float64(cell) / unit) // as raster.text draws it
					if shown := px * ReadWidth / float64(cfg.Width); shown < MinLabel {
						t.Fatalf("PNG %dx%d: label %q of %v px shows %.1f px tall at %d px wide; want >= %d",
							cfg.Width, cfg.Height, sh.Text, px, shown, ReadWidth, MinLabel)
					}
				}
				require.Equal(t, len(l.Labels), n)

				svg := SVG(l, nil)
				vb := viewBox.FindStringSubmatch(svg)
				require.NotNil(t, vb, "no viewBox")
				w, _ := strconv.ParseFloat(vb[1], 64)
				ms := fontSize.FindAllStringSubmatch(svg, -1)
				require.Len(t, ms, len(l.Labels))
				for _, m := range ms {
					size := textStyles["lbl"].size // the class's rule
					if m[1] != "" {
						size, _ = strconv.ParseFloat(m[1], 64)
					}
					if shown := size * ReadWidth / w; shown < MinLabel {
						t.Fatalf("SVG viewBox %v wide: a label of font size %v shows %.1f px tall at %d px wide; want >= %d",
							w, size, shown, ReadWidth, MinLabel)
					}
				}
			})
		}
	}
}
