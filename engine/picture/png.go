package picture

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/maphash"
	"image"
	"image/color"
	"image/draw"
	"maps"
	"math"
	"runtime"
	"slices"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"

	"pbem/engine"
)

// DefaultCell is the side of a cell in pixels when Options.Cell is 0: a
// board of ten cells across is 400 pixels wide, which a phone shows
// scaled to its width and sharp at about twice its CSS pixels. A board
// wider than MaxWidth at that size is drawn with smaller cells.
const (
	DefaultCell = 40
	MaxWidth    = 720
	// MaxPixels bounds either side of a PNG.
	MaxPixels = 4096
)

// cellPixels is the size of a cell: cell, else DefaultCell or less, to fit
// MaxWidth.
func cellPixels(l *engine.Layout, cell int) int {
	if cell > 0 {
		return cell
	}
	return max(16, min(DefaultCell, int(MaxWidth/(l.Width+2))))
}

// PNGSize returns the size in pixels of the PNG of l drawn with cells of
// cell pixels (0: the default size), and the size of a cell.
func PNGSize(l *engine.Layout, cell int) (w, h, cellPx int) {
	cell = cellPixels(l, cell)
	s := float64(cell) / unit
	return int(math.Ceil((l.Width + 2) * unit * s)), int(math.Ceil(((l.Height+2)*unit + holdingsHeight(l)) * s)), cell
}

// Image draws a layout (with o's marks) on an opaque light ground, cells of
// cell pixels (0: the default size): the same scene the SVG writes. The
// board without its pieces is drawn once for each board and side seen
// from, and kept; so are the pixels each cell's pieces leave over the
// pixels under them (see runs), copied when they come again.
func Image(l *engine.Layout, o *Options, cell int) *image.RGBA {
	img, _ := render(l, o, cell, nil, nil, false)
	return img
}

// pixels lends the buffers of pictures being encoded.
var pixels sync.Pool

// buffer returns a slice of n bytes from the pool (or new), contents
// undefined.
func buffer(n int) []byte {
	if b, ok := pixels.Get().(*[]byte); ok && cap(*b) >= n {
		return (*b)[:n]
	}
	return make([]byte, n)
}

// render draws l on a copy of its kept background, and returns it with
// its copy in fullPalette, laid over rows as a PNG holds them (see
// paletted). The pixels are pix's and idx's when they are of the size;
// then (unless plain) the RGBA picture is only drawn on, its background
// copied where something is drawn over it and nowhere else, for the
// palette's copy is what a PNG encodes. Plain draws every shape through
// the rasteriser and the background afresh, keeping nothing, and maps
// the pixels to the palette after: the drawing the kept masks, mapped as
// they are drawn, must equal.
func render(l *engine.Layout, o *Options, cell int, pix, idx []byte, plain bool) (*image.RGBA, *image.Paletted) {
	sc, _ := scenes.Get().(*scene)
	if sc == nil {
		sc = new(scene)
	}
	defer scenes.Put(sc)
	buildInto(sc, l, o, true)
	w, h, cell := PNGSize(l, cell)
	bg := background(sc, w, h, cell, plain)
	var img *image.RGBA
	lazy := false
	if len(pix) == len(bg.rgba.Pix) {
		img = &image.RGBA{Pix: pix, Stride: bg.rgba.Stride, Rect: bg.rgba.Rect}
		lazy = !plain
	} else {
		img = image.NewRGBA(bg.rgba.Rect)
	}
	if !lazy {
		copy(img.Pix, bg.rgba.Pix)
	}
	if len(idx) != (w+1)*h {
		idx = make([]byte, (w+1)*h)
	}
	pal := paletted(idx, w, h)
	// the background's colours are known: only what is drawn over it
	// is looked up
	copy(pal.Pix, bg.pal.Pix)
	if !plain {
		var under *image.RGBA
		if lazy {
			under = bg.rgba
		}
		paintShapes(img, pal, under, sc, cell, true, false)
		return img, pal
	}
	dirty := paintShapes(img, nil, nil, sc, cell, true, true)
	// each tile of tile x tile pixels drawn over is mapped once
	tw, th := (w+tile-1)/tile, (h+tile-1)/tile
	marked := make([]bool, tw*th)
	for _, r := range dirty {
		r = r.Intersect(img.Rect)
		for ty := r.Min.Y / tile; ty*tile < r.Max.Y; ty++ {
			for tx := r.Min.X / tile; tx*tile < r.Max.X; tx++ {
				marked[ty*tw+tx] = true
			}
		}
	}
	for i, m := range marked {
		if m {
			x, y := i%tw*tile, i/tw*tile
			toPaletted(pal, img, image.Rect(x, y, x+tile, y+tile))
		}
	}
	return img, pal
}

// scenes lends the scenes of pictures being drawn.
var scenes sync.Pool

// paintShapes draws the shapes of sc that are (fore) or are not (!fore)
// Fore, and returns the rectangles it drew in. Pal, if not nil, is img
// in fullPalette, and kept so: each pixel drawn is mapped. Under, if not
// nil, is what img shows where nothing is drawn: its pixels are copied
// into img's tiles only as they are drawn on.
func paintShapes(img *image.RGBA, pal *image.Paletted, under *image.RGBA, sc *scene, cell int, fore, plain bool) []image.Rectangle {
	s := float64(cell) / unit
	r := rasterizers.Get().(*raster)
	defer rasterizers.Put(r)
	r.img, r.pal, r.s, r.ox, r.oy, r.plain = img, pal, s, -sc.MinX*s, -sc.MinY*s, plain
	r.under, r.tw = under, 0
	if under != nil {
		b := img.Rect
		r.tw = (b.Dx() + tile - 1) / tile
		r.copied = slices.Grow(r.copied[:0], r.tw*((b.Dy()+tile-1)/tile))[:r.tw*((b.Dy()+tile-1)/tile)]
		clear(r.copied)
	}
	r.dirty = nil // returned: not reused
	for i := 0; i < len(sc.Shapes); i++ {
		sh := &sc.Shapes[i]
		if sh.Fore != fore {
			continue
		}
		if sh.Run == 0 || plain || pal == nil {
			r.paint(sh)
			continue
		}
		// the shapes of the run: Fore ones of its number (the background's
		// among them are not drawn now)
		j := i + 1
		for j < len(sc.Shapes) && (sc.Shapes[j].Fore != fore || sc.Shapes[j].Run == sh.Run) {
			j++
		}
		r.run(sc.Shapes[i:j], fore)
		i = j - 1
	}
	r.img, r.pal, r.under = nil, nil, nil
	return r.dirty
}

// paint draws a shape.
func (r *raster) paint(sh *shape) {
	switch sh.Kind {
	case polygon:
		r.shape(r.project(&r.proj, sh.Pts), sh.Fill, sh.Stroke, sh.Width*r.s, sh.Dash)
	case circle:
		var pts [len(unitCircle)]vec
		for k, u := range unitCircle {
			pts[k] = vec{sh.X + sh.R*u.X, sh.Y + sh.R*u.Y}
		}
		r.shape(r.project(&r.proj, pts[:]), sh.Fill, sh.Stroke, sh.Width*r.s, false)
	case text:
		r.text(sh)
	}
}

// A run's pixels (see shape.Run) are a function of the pixels under it
// and of what it draws: the masks (by their paths, as masks keeps them)
// and glyphs (by font, size and character) at their places within it,
// each in its colour. raster.run writes all of that in a key and keeps
// the pixels the run leaves, RGBA and paletted, under it: a board shows
// the same pieces on the same squares over and over, and copying them is
// several times cheaper than blending them again. The key holds what is
// drawn byte for byte and the pixels under it by 128 bits of hash, so a
// kept run gives the pixels drawing it would.
var runs struct {
	sync.RWMutex
	m     map[string]*kept
	bytes int
}

// kept is the pixels a run leaves in its rectangle: RGBA rows, then
// paletted rows.
type kept struct{ rgba, idx []byte }

const maxRuns = 4 << 20

// runSeeds seed the hashes of the pixels under a run.
var runSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// drawOp is one mask or glyph of a run, recorded to be keyed and drawn.
type drawOp struct {
	rect  image.Rectangle
	col   color.RGBA
	m     *mask        // a mask, or
	glyph *image.Alpha // a glyph
	// key is the op's identity, in r.opKeys: its mask's path bytes, or the
	// glyph's font, size and character
	key [2]int
}

// run draws shapes, one run, copying the pixels they leave from runs
// when the same run was drawn over the same pixels before.
func (r *raster) run(shapes []shape, fore bool) {
	r.recorded, r.opKeys, r.recording = r.recorded[:0], r.opKeys[:0], true
	for k := range shapes {
		if shapes[k].Fore == fore {
			r.paint(&shapes[k])
		}
	}
	r.recording = false
	var rect image.Rectangle
	for _, op := range r.recorded {
		rect = rect.Union(op.rect)
	}
	rect = rect.Intersect(r.img.Rect)
	if rect.Empty() {
		return
	}
	r.touch(rect)
	// the key: the rectangle's size, each op relative to it, then the
	// pixels under it
	k := binary.AppendUvarint(r.runKey[:0], uint64(rect.Dx()))
	k = binary.AppendUvarint(k, uint64(rect.Dy()))
	for _, op := range r.recorded {
		d := op.rect.Min.Sub(rect.Min)
		k = binary.AppendVarint(k, int64(d.X))
		k = binary.AppendVarint(k, int64(d.Y))
		k = binary.AppendUvarint(k, uint64(op.rect.Dx()))
		k = binary.AppendUvarint(k, uint64(op.rect.Dy()))
		k = append(k, op.col.R, op.col.G, op.col.B, op.col.A)
		b := r.opKeys[op.key[0]:op.key[1]]
		k = binary.AppendUvarint(k, uint64(len(b)))
		k = append(k, b...)
	}
	// the pixels under it by two hashes of 64 bits (kept backgrounds are
	// known by one): half the memory of a key holding them
	w := rect.Dx()
	r.h[0].SetSeed(runSeeds[0])
	r.h[1].SetSeed(runSeeds[1])
	for y := rect.Min.Y; y < rect.Max.Y; y++ {
		rgba := r.img.Pix[r.img.PixOffset(rect.Min.X, y):][:4*w]
		idx := r.pal.Pix[r.pal.PixOffset(rect.Min.X, y):][:w]
		for i := range r.h {
			r.h[i].Write(rgba)
			r.h[i].Write(idx)
		}
	}
	k = binary.LittleEndian.AppendUint64(k, r.h[0].Sum64())
	k = binary.LittleEndian.AppendUint64(k, r.h[1].Sum64())
	r.runKey = k
	runs.RLock()
	got := runs.m[string(k)]
	runs.RUnlock()
	if got == nil {
		for _, op := range r.recorded {
			if op.m != nil {
				r.blend(op.rect, op.m, op.col)
			} else {
				r.setColour(op.col)
				r.glyph(op.glyph, op.rect)
			}
		}
		got = &kept{make([]byte, 0, 4*w*rect.Dy()), make([]byte, 0, w*rect.Dy())}
		for y := rect.Min.Y; y < rect.Max.Y; y++ {
			got.rgba = append(got.rgba, r.img.Pix[r.img.PixOffset(rect.Min.X, y):][:4*w]...)
			got.idx = append(got.idx, r.pal.Pix[r.pal.PixOffset(rect.Min.X, y):][:w]...)
		}
		size := len(k) + len(got.rgba) + len(got.idx)
		runs.Lock()
		if runs.m == nil || runs.bytes+size > maxRuns {
			runs.m, runs.bytes = map[string]*kept{}, 0
		}
		runs.m[string(k)] = got
		runs.bytes += size
		runs.Unlock()
		return
	}
	for y, i := rect.Min.Y, 0; y < rect.Max.Y; y, i = y+1, i+1 {
		copy(r.img.Pix[r.img.PixOffset(rect.Min.X, y):][:4*w], got.rgba[4*w*i:])
		copy(r.pal.Pix[r.pal.PixOffset(rect.Min.X, y):][:w], got.idx[w*i:])
	}
}

// tile is the side, in pixels, of the squares of a picture that are
// mapped (plain) or copied from the background (under) at a time.
const tile = 16

// touch copies into r.img, from r.under, the tiles within rect not
// copied yet: the pixels about to be drawn on.
func (r *raster) touch(rect image.Rectangle) {
	if r.under == nil {
		return
	}
	b := r.img.Rect
	rect = rect.Intersect(b)
	for ty := rect.Min.Y / tile; ty*tile < rect.Max.Y; ty++ {
		for tx := rect.Min.X / tile; tx*tile < rect.Max.X; tx++ {
			if r.copied[ty*r.tw+tx] {
				continue
			}
			r.copied[ty*r.tw+tx] = true
			t := image.Rect(tx*tile, ty*tile, (tx+1)*tile, (ty+1)*tile).Intersect(b)
			for y := t.Min.Y; y < t.Max.Y; y++ {
				i := r.img.PixOffset(t.Min.X, y)
				copy(r.img.Pix[i:i+4*t.Dx()], r.under.Pix[i:])
			}
		}
	}
}

// unitCircle is a circle as a polygon of 28 sides.
var unitCircle = func() (pts [28]vec) {
	for k := range pts {
		a := float64(k) * 2 * math.Pi / float64(len(pts))
		pts[k] = vec{math.Cos(a), math.Sin(a)}
	}
	return pts
}()

// backgrounds keeps the boards drawn without pieces, by boardKey, up to
// maxBackgrounds bytes of pixels (then it starts again). A background is
// kept the second time it is drawn: one that changes with every position
// (elevation's terrain) is never kept, so it cannot push out the boards
// every game of a kind shares.
var backgrounds struct {
	sync.Mutex
	m     map[uint64]board
	bytes int
	seen  map[uint64]bool // drawn once, up to maxSeen keys
}

const maxSeen = 4096

// board is a background, drawn and in the palette (see paletted).
type board struct {
	rgba *image.RGBA
	pal  *image.Paletted
}

const maxBackgrounds = 32 << 20

// boardKey hashes what the background of sc shows: its size and every
// shape that is not Fore, written out in sc.key and hashed at once.
func boardKey(sc *scene, w, h, cell int) uint64 {
	b := sc.key[:0]
	f := func(v float64) { b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v)) }
	str := func(s string) { b = append(binary.AppendUvarint(b, uint64(len(s))), s...) }
	f(float64(w))
	f(float64(h))
	f(float64(cell))
	for i := range sc.Shapes {
		sh := &sc.Shapes[i]
		if sh.Fore || sh.Kind == openGroup || sh.Kind == closeGroup {
			continue
		}
		b = binary.AppendUvarint(b, uint64(sh.Kind))
		b = binary.AppendUvarint(b, uint64(len(sh.Pts)))
		for _, p := range sh.Pts {
			f(p.X)
			f(p.Y)
		}
		for _, v := range [...]float64{sh.X, sh.Y, sh.R, sh.Width, sh.Size} {
			f(v)
		}
		for _, t := range [...]string{sh.Fill, sh.Stroke, sh.Class, sh.Text} {
			str(t)
		}
	}
	sc.key = b
	return maphash.Bytes(boardSeed, b)
}

// boardSeed seeds the hash of backgrounds, which are kept in memory only.
var boardSeed = maphash.MakeSeed()

func background(sc *scene, w, h, cell int, plain bool) board {
	key := boardKey(sc, w, h, cell)
	backgrounds.Lock()
	bg, ok := backgrounds.m[key]
	backgrounds.Unlock()
	if ok && !plain {
		return bg
	}
	rgba := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(rgba, rgba.Rect, image.NewUniform(ground), image.Point{}, draw.Src)
	paintShapes(rgba, nil, nil, sc, cell, false, plain)
	pal := paletted(make([]byte, (w+1)*h), w, h)
	toPaletted(pal, rgba, rgba.Rect)
	bg = board{rgba, pal}
	if plain {
		return bg
	}
	size := len(rgba.Pix) + len(pal.Pix)
	backgrounds.Lock()
	defer backgrounds.Unlock()
	if !backgrounds.seen[key] {
		if backgrounds.seen == nil || len(backgrounds.seen) >= maxSeen {
			backgrounds.seen = map[uint64]bool{}
		}
		backgrounds.seen[key] = true
		return bg
	}
	if backgrounds.m == nil || backgrounds.bytes+size > maxBackgrounds {
		backgrounds.m, backgrounds.bytes = map[uint64]board{}, 0
	}
	backgrounds.m[key] = bg
	backgrounds.bytes += size
	return bg
}

// ground is the picture's own background, light in a dark-mode reader too.
var ground = color.RGBA{0xff, 0xff, 0xff, 0xff}

// PNG draws a layout as a PNG image (see Image) of 256 colours: those of
// the scene exactly, the blends at the edges of shapes to the nearest of
// a 5x5x5 cube.
//
// A layout it cannot draw (a board wider or taller than MaxPixels, or one
// that trips a bug in drawing) is an error, never a panic, so that a mail
// can still go out with its text.
func PNG(l *engine.Layout, o *Options, cell int) (data []byte, err error) {
	return drawPNG(l, o, cell, false)
}

// drawPNG is PNG, plain (see render) or not.
func drawPNG(l *engine.Layout, o *Options, cell int, plain bool) (data []byte, err error) {
	w, h, _ := PNGSize(l, cell)
	if w <= 0 || h <= 0 || w > MaxPixels || h > MaxPixels {
		return nil, fmt.Errorf("picture: a board of %dx%d pixels; want 1 to %d each way", w, h, MaxPixels)
	}
	// as many drawn at once as there are CPUs: more would only hold more
	// pixels and encoders (a megabyte each) at a time, which the
	// collector then drops and the next drawing makes again
	drawing <- struct{}{}
	defer func() { <-drawing }()
	defer func() {
		if r := recover(); r != nil {
			data, err = nil, fmt.Errorf("picture: drawing failed: %v", r)
		}
	}()
	// paletted, written without filters, a byte a pixel: a third of
	// what RGB costs to compress, and smaller
	rgba, idx := buffer(4*w*h), buffer((w+1)*h)
	defer func() {
		pixels.Put(&rgba)
		pixels.Put(&idx)
	}()
	render(l, o, cell, rgba, idx, plain)
	// encoded into a lent buffer, returned in a copy of its size
	var buf *bytes.Buffer
	select {
	case buf = <-outputs:
		buf.Reset()
	default:
		buf = new(bytes.Buffer)
	}
	defer func() {
		select {
		case outputs <- buf:
		default:
		}
	}()
	if err := writePNG(buf, w, h, idx); err != nil {
		return nil, err
	}
	return bytes.Clone(buf.Bytes()), nil
}

// drawing holds a place for each PNG being drawn.
var drawing = make(chan struct{}, runtime.GOMAXPROCS(0))

// outputs keeps the buffers PNGs are encoded into, one for each drawn at
// once (as zwriters).
var outputs = make(chan *bytes.Buffer, cap(drawing))

// cube is a 5x5x5 colour cube, the palette's last 125 colours.
var cube = func() color.Palette {
	p := make(color.Palette, 0, 125)
	for r := range 5 {
		for g := range 5 {
			for b := range 5 {
				p = append(p, color.NRGBA{cubeLevel(r), cubeLevel(g), cubeLevel(b), 0xff})
			}
		}
	}
	return p
}()

func cubeLevel(i int) uint8 { return uint8(min(255, i*64)) }

// sceneColours are every colour a scene paints, the ground first.
var sceneColours = func() []color.RGBA {
	seen := map[color.RGBA]bool{}
	var out []color.RGBA
	add := func(c color.RGBA) {
		if !seen[c] && len(out) < 256-len(cube) {
			seen[c] = true
			out = append(out, c)
		}
	}
	add(ground)
	for _, s := range []string{"#efe6d2", "#d9c9a6", "#8a7a5a", "#b8860b", "#111", "#222", "#333", "#555", "#000", "#fff", markColour} {
		add(parseColour(s))
	}
	for _, name := range slices.Sorted(maps.Keys(palette)) {
		add(parseColour(palette[name][0]))
		add(parseColour(palette[name][1]))
	}
	// the shades of heights up to 12 (elevation's towers, ziggurat's
	// tiers); higher ones are drawn in the cube's nearest colours
	for mh := 1; mh <= 12; mh++ {
		for h := 0; h <= mh; h++ {
			add(parseColour(cellFill(&engine.Cell{Height: h}, mh)))
		}
	}
	return out
}()

// fullPalette's colours are NRGBA, as the encoder writes them: it
// converts none.
var fullPalette, exact = func() (color.Palette, *exactTable) {
	p := make(color.Palette, 0, 256)
	t := new(exactTable)
	for _, c := range sceneColours {
		t.put(rgbKey(c.R, c.G, c.B), uint8(len(p)))
		p = append(p, color.NRGBA{c.R, c.G, c.B, c.A})
	}
	return append(p, cube...), t
}()

// exactTable finds the palette index of a scene colour: open addressing
// over 1,024 slots (the scene has under 140 colours), a slot holding the
// key plus one (0: empty) and the index.
type exactTable [1024]struct {
	key uint32
	idx uint8
}

func slotOf(k uint32) uint32 { return (k * 2654435761) >> 22 }

func (t *exactTable) put(k uint32, i uint8) {
	for s := slotOf(k); ; s = (s + 1) % uint32(len(t)) {
		switch t[s].key {
		case 0:
			t[s].key, t[s].idx = k+1, i
			return
		case k + 1:
			return // the first colour of that value keeps it
		}
	}
}

func (t *exactTable) get(k uint32) (uint8, bool) {
	for s := slotOf(k); ; s = (s + 1) % uint32(len(t)) {
		switch t[s].key {
		case 0:
			return 0, false
		case k + 1:
			return t[s].idx, true
		}
	}
}

func rgbKey(r, g, b uint8) uint32 { return uint32(r)<<16 | uint32(g)<<8 | uint32(b) }

// toPaletted maps the pixels of img within r to fullPalette, into p.
func toPaletted(p *image.Paletted, img *image.RGBA, r image.Rectangle) {
	r = r.Intersect(img.Rect)
	last, lastIdx := uint32(1<<31), uint8(0)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := img.Pix[img.PixOffset(r.Min.X, y):img.PixOffset(r.Max.X, y)]
		out := p.Pix[p.PixOffset(r.Min.X, y):]
		for x := 0; x < len(row); x += 4 {
			k := rgbKey(row[x], row[x+1], row[x+2])
			if k != last {
				last, lastIdx = k, paletteIndex(row[x], row[x+1], row[x+2])
			}
			out[x/4] = lastIdx
		}
	}
}

// paletteIndex is the index in fullPalette of a colour: its own if the
// scene paints it, else the nearest of the cube.
func paletteIndex(r, g, b uint8) uint8 {
	i, ok := exact.get(rgbKey(r, g, b))
	if !ok {
		q := func(v uint8) int { return (int(v) + 32) / 64 }
		i = uint8(len(fullPalette) - len(cube) + q(r)*25 + q(g)*5 + q(b))
	}
	return i
}

// raster draws shapes onto an image, each through a rasteriser the size
// of the shape's bounds only.
type raster struct {
	z      vector.Rasterizer
	img    *image.RGBA
	pal    *image.Paletted // img in fullPalette, kept so when not nil
	s      float64
	ox, oy float64
	u      image.Uniform
	quad   [4]vec
	dirty  []image.Rectangle // drawn in, when plain
	// proj, outer and inner hold the points of the shape being drawn
	proj, outer, inner []vec
	gs                 []glyph
	// plain sends each path straight to z; otherwise the paths since
	// begin are kept in ops (the rectangle's size, then for each path
	// its number of points and their coordinates relative to the
	// rectangle) and key (ops' bytes), and z draws only a mask not kept.
	plain bool
	ops   []float32
	key   []byte
	col   color.RGBA // u's colour
	// under, when not nil, is the background img shows until drawn on:
	// copied, the tiles (tw a row) copied from it are set.
	under  *image.RGBA
	copied []bool
	tw     int
	// recording, the masks and glyphs a run draws are kept in recorded (their
	// keys in opKeys) instead of drawn; runKey is a run's key
	recording      bool
	recorded       []drawOp
	opKeys, runKey []byte
	h              [2]maphash.Hash
}

// setColour makes u of colour c (through a pointer to r.col: no colour
// is boxed).
func (r *raster) setColour(c color.RGBA) {
	r.col, r.u.C = c, &r.col
}

// coverage is an image that keeps only the alpha of what is drawn on it,
// 16 bits a pixel, and reads transparent.
type coverage struct {
	m    []uint16
	rect image.Rectangle
}

var transparent color.Color = color.Alpha16{}

func (c *coverage) ColorModel() color.Model { return color.Alpha16Model }
func (c *coverage) Bounds() image.Rectangle { return c.rect }
func (c *coverage) At(x, y int) color.Color { return transparent }
func (c *coverage) Set(x, y int, col color.Color) {
	_, _, _, a := col.RGBA()
	c.m[y*c.rect.Dx()+x] = uint16(a)
}

var rasterizers = sync.Pool{New: func() any { return new(raster) }}

// project returns pts in pixels, in *buf (grown as needed).
func (r *raster) project(buf *[]vec, pts []vec) []vec {
	out := slices.Grow((*buf)[:0], len(pts))[:len(pts)]
	*buf = out
	for i, p := range pts {
		out[i] = vec{p.X*r.s + r.ox, p.Y*r.s + r.oy}
	}
	return out
}

// begin sizes the rasteriser to the pixels of pts (grown by pad) within
// the image and returns that rectangle; empty when outside.
func (r *raster) begin(pts []vec, pad float64) image.Rectangle {
	x0, y0, x1, y1 := bounds(pts)
	rect := image.Rect(int(math.Floor(x0-pad)), int(math.Floor(y0-pad)), int(math.Ceil(x1+pad)), int(math.Ceil(y1+pad))).Intersect(r.img.Bounds())
	if !rect.Empty() {
		if r.plain {
			r.z.Reset(rect.Dx(), rect.Dy())
		} else {
			r.ops = append(r.ops[:0], float32(rect.Dx()), float32(rect.Dy()))
		}
	}
	return rect
}

func (r *raster) path(pts []vec, at image.Point) {
	dx, dy := float32(at.X), float32(at.Y)
	if !r.plain {
		r.ops = append(r.ops, float32(len(pts)))
		for _, p := range pts {
			r.ops = append(r.ops, float32(p.X)-dx, float32(p.Y)-dy)
		}
		return
	}
	r.z.MoveTo(float32(pts[0].X)-dx, float32(pts[0].Y)-dy)
	for _, p := range pts[1:] {
		r.z.LineTo(float32(p.X)-dx, float32(p.Y)-dy)
	}
	r.z.ClosePath()
}

func (r *raster) draw(rect image.Rectangle, c color.RGBA) {
	if r.plain {
		r.setColour(c)
		r.dirty = append(r.dirty, rect)
		r.z.Draw(r.img, rect, &r.u, image.Point{})
		return
	}
	m := r.mask(rect.Dx(), rect.Dy())
	if r.recording {
		n := len(r.opKeys)
		r.opKeys = append(append(r.opKeys, 'm'), r.key...)
		r.recorded = append(r.recorded, drawOp{rect: rect, col: c, m: m, key: [2]int{n, len(r.opKeys)}})
		return
	}
	r.blend(rect, m, c)
}

// blend draws colour c through mask m in rect: the same formula as the
// rasteriser's over an RGBA image, with the coverage it would compute,
// kept by the paths drawn.
func (r *raster) blend(rect image.Rectangle, m *mask, c color.RGBA) {
	r.touch(rect)
	sr, sg, sb, sa := c.RGBA()
	// a pixel covered wholly by an opaque colour is that colour
	solid := c.A == 0xff
	var ci uint8
	if r.pal != nil {
		ci = paletteIndex(c.R, c.G, c.B)
	}
	w := rect.Dx()
	// the last colour blended and its index: neighbours often agree
	last, lastIdx := uint32(1<<31), uint8(0)
	for _, sp := range m.spans {
		x0, x1 := int(sp.x0), int(sp.x1)
		y := int(sp.y)
		pix := r.img.Pix[r.img.PixOffset(rect.Min.X+x0, rect.Min.Y+y):][:4*(x1-x0)]
		var idx []uint8
		if r.pal != nil {
			idx = r.pal.Pix[r.pal.PixOffset(rect.Min.X+x0, rect.Min.Y+y):][:x1-x0]
		}
		if sp.full && solid {
			for i := 0; i < len(pix); i += 4 {
				p := pix[i : i+4 : i+4]
				p[0], p[1], p[2], p[3] = c.R, c.G, c.B, c.A
			}
			for i := range idx {
				idx[i] = ci
			}
			continue
		}
		for x, ma16 := range m.cov[y*w+x0 : y*w+x1] {
			i := 4 * x
			p := pix[i : i+4 : i+4]
			ma := uint32(ma16)
			a := 0xffff - (sa * ma / 0xffff)
			p[0] = uint8(((uint32(p[0])*0x101*a + sr*ma) / 0xffff) >> 8)
			p[1] = uint8(((uint32(p[1])*0x101*a + sg*ma) / 0xffff) >> 8)
			p[2] = uint8(((uint32(p[2])*0x101*a + sb*ma) / 0xffff) >> 8)
			p[3] = uint8(((uint32(p[3])*0x101*a + sa*ma) / 0xffff) >> 8)
			if idx != nil {
				if k := rgbKey(p[0], p[1], p[2]); k != last {
					last, lastIdx = k, paletteIndex(p[0], p[1], p[2])
				}
				idx[x] = lastIdx
			}
		}
	}
}

// mask is the coverage of paths: w x h values of 0 to 0xffff (cov), and
// the pixels they cover as spans of a row, in order, each of pixels all
// covered wholly or all partly, so that a mask is drawn without a look at
// the pixels it does not cover and one colour filled over those it covers
// wholly.
type mask struct {
	cov   []uint16
	spans []span
}

// span is the pixels x0 to x1 (excluded) of row y of a mask (a picture
// is at most MaxPixels a side).
type span struct {
	y, x0, x1 uint16
	full      bool
}

// spansOf returns the spans of cov, w values a row.
func spansOf(cov []uint16, w int) []span {
	var out []span
	for y := 0; y*w < len(cov); y++ {
		row := cov[y*w : (y+1)*w]
		for x := 0; x < w; {
			if row[x] == 0 {
				x++
				continue
			}
			full := row[x] == 0xffff
			x0 := x
			for x < w && row[x] != 0 && (row[x] == 0xffff) == full {
				x++
			}
			out = append(out, span{uint16(y), uint16(x0), uint16(x), full})
		}
	}
	return out
}

// masks keeps the coverage of the paths drawn, by the bytes of their
// ops, up to maxMasks bytes (then it starts again): a picture draws the
// same pieces, marks and outlines at the same offsets within a pixel over
// and over.
var masks struct {
	sync.RWMutex
	m     map[string]*mask
	bytes int
}

const maxMasks = 16 << 20

// mask returns the coverage of r.ops, w x h values, from masks or drawn.
func (r *raster) mask(w, h int) *mask {
	r.key = r.key[:0]
	for _, v := range r.ops {
		r.key = binary.LittleEndian.AppendUint32(r.key, math.Float32bits(v))
	}
	masks.RLock()
	m, ok := masks.m[string(r.key)]
	masks.RUnlock()
	if ok {
		return m
	}
	r.z.Reset(w, h)
	ops := r.ops[2:]
	for len(ops) > 0 {
		n := int(ops[0])
		pts := ops[1 : 1+2*n]
		r.z.MoveTo(pts[0], pts[1])
		for k := 2; k < len(pts); k += 2 {
			r.z.LineTo(pts[k], pts[k+1])
		}
		r.z.ClosePath()
		ops = ops[1+2*n:]
	}
	// over nothing, an opaque source leaves exactly the coverage
	cov := make([]uint16, w*h)
	r.z.Draw(&coverage{cov, image.Rect(0, 0, w, h)}, image.Rect(0, 0, w, h), image.Opaque, image.Point{})
	m = &mask{cov, spansOf(cov, w)}
	size := 2*len(cov) + 8*len(m.spans) + len(r.key) // 8 bytes a span
	masks.Lock()
	if masks.m == nil || masks.bytes+size > maxMasks {
		masks.m, masks.bytes = map[string]*mask{}, 0
	}
	masks.m[string(r.key)] = m
	masks.bytes += size
	masks.Unlock()
	return m
}

func (r *raster) fill(pts []vec, c color.RGBA) {
	rect := r.begin(pts, 0)
	if rect.Empty() {
		return
	}
	r.path(pts, rect.Min)
	r.draw(rect, c)
}

// shape draws a polygon filled and stroked as SVG does, the stroke
// centred on the outline. A convex one is drawn as two fills: the outline
// grown by half the stroke's width in the stroke's colour, then shrunk by
// half in the fill's (or, unfilled, the ring between the two); any other
// through stroke.
func (r *raster) shape(pts []vec, fill, stroke string, w float64, dash bool) {
	if stroke == "" {
		if fill != "" {
			r.fill(pts, parseColour(fill))
		}
		return
	}
	w = max(w, 0.6)
	if dash || !convex(pts) {
		if fill != "" {
			r.fill(pts, parseColour(fill))
		}
		r.stroke(pts, w, dash, parseColour(stroke))
		return
	}
	outer, inner := offset(&r.outer, pts, w/2), offset(&r.inner, pts, -w/2)
	if fill != "" {
		r.fill(outer, parseColour(stroke))
		r.fill(inner, parseColour(fill))
		return
	}
	rect := r.begin(outer, 0)
	if rect.Empty() {
		return
	}
	r.path(outer, rect.Min)
	slices.Reverse(inner)
	r.path(inner, rect.Min)
	r.draw(rect, parseColour(stroke))
}

// area is the signed area of a polygon (positive when it runs with the
// interior on its left).
func area(pts []vec) float64 {
	a := 0.0
	for i, p := range pts {
		q := pts[(i+1)%len(pts)]
		a += p.X*q.Y - q.X*p.Y
	}
	return a / 2
}

// convex reports whether a polygon turns one way at every vertex.
func convex(pts []vec) bool {
	sign := 0.0
	for i := range pts {
		a, b, c := pts[i], pts[(i+1)%len(pts)], pts[(i+2)%len(pts)]
		z := (b.X-a.X)*(c.Y-b.Y) - (b.Y-a.Y)*(c.X-b.X)
		if z == 0 {
			continue
		}
		if sign != 0 && (z > 0) != (sign > 0) {
			return false
		}
		sign = z
	}
	return true
}

// offset moves every edge of a convex polygon out by d (in, for d < 0),
// the vertices to where the moved edges meet, into *buf (grown as needed).
func offset(buf *[]vec, pts []vec, d float64) []vec {
	n := len(pts)
	if area(pts) < 0 {
		d = -d
	}
	// the right normal of each edge, outward for a polygon of positive area
	var nb [32]vec
	normals := nb[:0]
	if n > len(nb) {
		normals = make([]vec, n)
	}
	normals = normals[:n]
	for i := range pts {
		a, b := pts[i], pts[(i+1)%n]
		l := math.Hypot(b.X-a.X, b.Y-a.Y)
		if l > 0 {
			normals[i] = vec{(b.Y - a.Y) / l, -(b.X - a.X) / l}
		}
	}
	out := slices.Grow((*buf)[:0], n)[:n]
	*buf = out
	for i := range pts {
		n0, n1 := normals[(i+n-1)%n], normals[i]
		k := 1 + n0.X*n1.X + n0.Y*n1.Y
		if k < 1e-6 {
			out[i] = vec{pts[i].X + d*n1.X, pts[i].Y + d*n1.Y}
			continue
		}
		out[i] = vec{pts[i].X + d*(n0.X+n1.X)/k, pts[i].Y + d*(n0.Y+n1.Y)/k}
	}
	return out
}

// stroke draws the closed outline pts, width w pixels, as one quad per
// edge (or per dash), each extended by half the width at its ends so that
// corners close; the quads all turn one way, so their overlaps do not
// cancel.
func (r *raster) stroke(pts []vec, w float64, dash bool, c color.RGBA) {
	rect := r.begin(pts, w)
	if rect.Empty() {
		return
	}
	h := w / 2
	for i := range pts {
		a, b := pts[i], pts[(i+1)%len(pts)]
		dx, dy := b.X-a.X, b.Y-a.Y
		l := math.Hypot(dx, dy)
		if l == 0 {
			continue
		}
		dx, dy = dx/l, dy/l
		on, off := l+w, 0.0
		if dash {
			on, off = 3*r.s, 2*r.s
		}
		for t := -h; t < l+h; t += on + off {
			e := min(t+on, l+h)
			p0 := vec{a.X + dx*t, a.Y + dy*t}
			p1 := vec{a.X + dx*e, a.Y + dy*e}
			nx, ny := -dy*h, dx*h
			r.quad = [4]vec{{p0.X + nx, p0.Y + ny}, {p1.X + nx, p1.Y + ny}, {p1.X - nx, p1.Y - ny}, {p0.X - nx, p0.Y - ny}}
			r.path(r.quad[:], rect.Min)
		}
	}
	r.draw(rect, c)
}

func (r *raster) text(sh *shape) {
	st := textStyles[sh.Class]
	size := st.size
	if sh.Size != 0 {
		size = sh.Size
	}
	px := int(math.Round(size * r.s))
	if px < 5 || sh.Text == "" {
		return
	}
	fill := sh.Fill
	if fill == "" {
		fill = st.fill
	}
	if fill == "" {
		fill = "#000"
	}
	r.gs = glyphs(r.gs[:0], st.bold, px, sh.Text)
	gs := r.gs
	width := 0
	for _, g := range gs {
		width += g.advance
	}
	x := int(math.Round(sh.X*r.s + r.ox))
	if !st.start {
		x -= width / 2
	}
	// the baseline below the centre by half the height of a capital
	y := int(math.Round(sh.Y*r.s + r.oy + 0.36*float64(px)))
	r.setColour(parseColour(fill))
	k := 0
	for _, c := range sh.Text {
		g := gs[k]
		k++
		if g.mask != nil {
			dr := g.rect.Add(image.Pt(x, y))
			switch {
			case r.plain:
				r.dirty = append(r.dirty, dr)
				draw.DrawMask(r.img, dr, &r.u, image.Point{}, g.mask, g.mask.Rect.Min, draw.Over)
			case r.recording:
				n := len(r.opKeys)
				r.opKeys = append(r.opKeys, 'g', 0)
				if st.bold {
					r.opKeys[n+1] = 1
				}
				r.opKeys = binary.AppendUvarint(binary.AppendUvarint(r.opKeys, uint64(px)), uint64(c))
				r.recorded = append(r.recorded, drawOp{rect: dr, col: r.col, glyph: g.mask, key: [2]int{n, len(r.opKeys)}})
			default:
				r.glyph(g.mask, dr)
			}
		}
		x += g.advance
	}
}

// glyph draws mask at dr in r's colour over r.img as draw.DrawMask does
// (Over, the formula of its drawGlyphOver), and maps each pixel it
// changes into r.pal: the pixels the mask does not cover are neither
// read nor written.
func (r *raster) glyph(mask *image.Alpha, dr image.Rectangle) {
	rect := dr.Intersect(r.img.Rect)
	if rect.Empty() {
		return
	}
	r.touch(rect)
	c := r.col
	sr, sg, sb, sa := c.RGBA()
	var ci uint8
	if r.pal != nil {
		ci = paletteIndex(c.R, c.G, c.B)
	}
	solid := c.A == 0xff
	last, lastIdx := uint32(1<<31), uint8(0)
	for y := rect.Min.Y; y < rect.Max.Y; y++ {
		m := mask.Pix[mask.PixOffset(rect.Min.X-dr.Min.X+mask.Rect.Min.X, y-dr.Min.Y+mask.Rect.Min.Y):][:rect.Dx()]
		pix := r.img.Pix[r.img.PixOffset(rect.Min.X, y):]
		var idx []uint8
		if r.pal != nil {
			idx = r.pal.Pix[r.pal.PixOffset(rect.Min.X, y):]
		}
		for x, mb := range m {
			if mb == 0 {
				continue
			}
			p := pix[4*x : 4*x+4 : 4*x+4]
			if mb == 0xff && solid {
				p[0], p[1], p[2], p[3] = c.R, c.G, c.B, c.A
				if idx != nil {
					idx[x] = ci
				}
				continue
			}
			ma := uint32(mb) * 0x101
			a := (0xffff - (sa * ma / 0xffff)) * 0x101
			p[0] = uint8((uint32(p[0])*a + sr*ma) / 0xffff >> 8)
			p[1] = uint8((uint32(p[1])*a + sg*ma) / 0xffff >> 8)
			p[2] = uint8((uint32(p[2])*a + sb*ma) / 0xffff >> 8)
			p[3] = uint8((uint32(p[3])*a + sa*ma) / 0xffff >> 8)
			if idx != nil {
				if k := rgbKey(p[0], p[1], p[2]); k != last {
					last, lastIdx = k, paletteIndex(p[0], p[1], p[2])
				}
				idx[x] = lastIdx
			}
		}
	}
}

// glyph is one character drawn at a size: its mask relative to the dot
// and its advance, in whole pixels.
type glyph struct {
	mask    *image.Alpha
	rect    image.Rectangle
	advance int
}

type glyphKey struct {
	bold bool
	px   int
	r    rune
}

var fonts struct {
	sync.Mutex
	regular, bold *opentype.Font
	faces         map[[2]int]font.Face
	glyphs        map[glyphKey]glyph
}

// glyphs appends to out the glyphs of s in the Go font of px pixels, each drawn
// once and kept: a picture's texts are letters, digits and a few names.
func glyphs(out []glyph, bold bool, px int, s string) []glyph {
	fonts.Lock()
	defer fonts.Unlock()
	if fonts.glyphs == nil {
		fonts.regular, _ = opentype.Parse(goregular.TTF)
		fonts.bold, _ = opentype.Parse(gobold.TTF)
		fonts.faces = map[[2]int]font.Face{}
		fonts.glyphs = map[glyphKey]glyph{}
	}
	for _, c := range s {
		k := glyphKey{bold, px, c}
		g, ok := fonts.glyphs[k]
		if !ok {
			g = drawGlyph(bold, px, c)
			if len(fonts.glyphs) < 1<<14 {
				fonts.glyphs[k] = g
			}
		}
		out = append(out, g)
	}
	return out
}

func drawGlyph(bold bool, px int, c rune) glyph {
	b := 0
	if bold {
		b = 1
	}
	face := fonts.faces[[2]int{b, px}]
	if face == nil {
		f := fonts.regular
		if bold {
			f = fonts.bold
		}
		var err error
		face, err = opentype.NewFace(f, &opentype.FaceOptions{Size: float64(px), DPI: 72, Hinting: font.HintingFull})
		if err != nil {
			return glyph{}
		}
		fonts.faces[[2]int{b, px}] = face
	}
	dr, mask, mp, adv, ok := face.Glyph(fixed.Point26_6{}, c)
	g := glyph{advance: adv.Round()}
	if !ok || dr.Empty() {
		return g
	}
	a := image.NewAlpha(image.Rect(0, 0, dr.Dx(), dr.Dy()))
	draw.Draw(a, a.Rect, mask, mp, draw.Src)
	g.mask, g.rect = a, dr
	return g
}

// parseColour reads "#rgb" or "#rrggbb"; anything else is grey.
func parseColour(s string) color.RGBA {
	hex := func(c byte) uint8 {
		switch {
		case c >= '0' && c <= '9':
			return c - '0'
		case c >= 'a' && c <= 'f':
			return c - 'a' + 10
		case c >= 'A' && c <= 'F':
			return c - 'A' + 10
		}
		return 8
	}
	switch len(s) {
	case 4:
		return color.RGBA{hex(s[1]) * 17, hex(s[2]) * 17, hex(s[3]) * 17, 0xff}
	case 7:
		return color.RGBA{hex(s[1])<<4 | hex(s[2]), hex(s[3])<<4 | hex(s[4]), hex(s[5])<<4 | hex(s[6]), 0xff}
	}
	return color.RGBA{0x99, 0x99, 0x99, 0xff}
}

// Probe says where a cell lies in a PNG and what an empty one looks like,
// for a reader of the picture (a test) to tell whether it shows pieces.
type Probe struct {
	Name string
	// X, Y is the cell's centre in pixels; pieces cover some of the
	// square within Half pixels of it (and no label or outline does).
	X, Y, Half int
	// Empty is the cell's own colour, as "#rrggbb".
	Empty string
	// Occupied says the layout puts a piece or a castle on the cell.
	Occupied bool
}

// Probes returns a Probe for each cell of l drawn with cells of cell
// pixels (0: the default size).
func Probes(l *engine.Layout, cell int) []Probe {
	_, _, cell = PNGSize(l, cell)
	s := float64(cell) / unit
	maxH := 0
	for _, c := range l.Cells {
		maxH = max(maxH, c.Height)
	}
	out := make([]Probe, len(l.Cells))
	for i := range l.Cells {
		c := &l.Cells[i]
		fill := parseColour(cellFill(c, maxH))
		out[i] = Probe{Name: c.Name, X: int((c.X + 1) * unit * s), Y: int((c.Y + 1) * unit * s), Half: int(10 * s),
			Empty:    "#" + hex.EncodeToString([]byte{fill.R, fill.G, fill.B}),
			Occupied: len(c.Pieces) > 0 || c.Mark == "castle" && c.Owner >= 0}
	}
	return out
}
