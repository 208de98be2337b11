package picture

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sync"

	"pbem/engine"
)

// A Drawing is stored with every mail that shows a board, written on the
// referee's commit path and read back when the mail is sent. In
// encoding/json's object, reading it took about a sixth of the time of
// drawing its picture; its binary form is written and read here by hand,
// every field of engine.Layout and Options in turn, six to nine times
// faster (TestDrawingBinaryEveryField fails when a field is added that
// this does not know).
//
// The form, version 1: the version byte; Cell; Options (a presence byte,
// Title, Marked); the Layout (a presence byte, then its fields in the
// order engine.Layout declares them, and those of its Cells, Labels,
// Holdings and their Pieces likewise). An int is a zigzag varint, a
// count or a length a uvarint, a float64 the uvarint of its bits with the
// bytes reversed (small for the halves and whole numbers of a layout), a
// bool a byte 0 or 1, a string its length and bytes, a slice its length
// and elements (empty: nil).
const binaryVersion = 1

// MarshalBinary writes d in its binary form (see binaryVersion). A value
// JSON could not hold either (a float that is not finite) is an error.
func (d *Drawing) MarshalBinary() ([]byte, error) {
	return d.appendBinary(make([]byte, 0, d.size()))
}

// appendBinary appends d's binary form to b.
func (d *Drawing) appendBinary(b []byte) ([]byte, error) {
	if err := finite(d.Layout); err != nil {
		return nil, err
	}
	b = append(b, binaryVersion)
	b = appendInt(b, d.Cell)
	b = appendBool(b, d.Options != nil)
	if o := d.Options; o != nil {
		b = appendString(b, o.Title)
		b = appendStrings(b, o.Marked)
	}
	b = appendBool(b, d.Layout != nil)
	if l := d.Layout; l != nil {
		b = appendLayout(b, l)
	}
	return b, nil
}

// size is about the bytes of d's binary form.
func (d *Drawing) size() int {
	if d.Layout == nil {
		return 64
	}
	return 64 + 24*len(d.Layout.Cells) + 6*len(d.Layout.Labels) + 16*len(d.Layout.Holdings)
}

// finite returns an error if a float of l is not finite: JSON cannot
// hold it, and no layout has one.
func finite(l *engine.Layout) error {
	if l == nil {
		return nil
	}
	bad := func(f float64) bool { return math.IsNaN(f) || math.IsInf(f, 0) }
	for _, f := range [...]float64{l.Width, l.Height} {
		if bad(f) {
			return fmt.Errorf("picture: a drawing of a layout %v wide or high", f)
		}
	}
	for i := range l.Cells {
		if bad(l.Cells[i].X) || bad(l.Cells[i].Y) {
			return fmt.Errorf("picture: a drawing of cell %s at %v, %v", l.Cells[i].Name, l.Cells[i].X, l.Cells[i].Y)
		}
	}
	for _, lb := range l.Labels {
		if bad(lb.X) || bad(lb.Y) {
			return fmt.Errorf("picture: a drawing of label %s at %v, %v", lb.Text, lb.X, lb.Y)
		}
	}
	return nil
}

// UnmarshalBinary reads d from its binary form. A form that is not one
// MarshalBinary writes (another version, a count beyond its bytes, bytes
// left over) is an error; what d holds then is undefined.
func (d *Drawing) UnmarshalBinary(data []byte) error {
	if len(data) == 0 {
		return errors.New("picture: an empty drawing")
	}
	if data[0] != binaryVersion {
		return fmt.Errorf("picture: a drawing of version %d, not %d", data[0], binaryVersion)
	}
	// every string is a piece of one copy of the data
	r := binReader{s: string(data[1:])}
	*d = Drawing{Cell: r.int()}
	if r.bool() {
		d.Options = &Options{Title: r.str(), Marked: r.strs()}
	}
	if r.bool() {
		d.Layout = r.layout()
	}
	if r.err == nil && r.left() > 0 {
		r.fail("%d bytes after the drawing", r.left())
	}
	return r.err
}

// JSON returns d as it is stored with a mail (archive.Inline.Picture): a
// JSON string of its binary form in base64, which DrawJSON draws.
func (d *Drawing) JSON() ([]byte, error) {
	scratch, _ := binaries.Get().(*[]byte)
	if scratch == nil {
		scratch = new([]byte)
	}
	defer binaries.Put(scratch)
	bin, err := d.appendBinary((*scratch)[:0])
	if err != nil {
		return nil, err
	}
	*scratch = bin
	n := base64.StdEncoding.EncodedLen(len(bin))
	out := make([]byte, n+2)
	out[0], out[n+1] = '"', '"'
	base64.StdEncoding.Encode(out[1:], bin)
	return out, nil
}

// binaries lends the buffers binary forms are written in on their way to
// base64.
var binaries sync.Pool

// readDrawing reads a Drawing stored as JSON: a string (see JSON), or the
// object encoding/json writes, which earlier versions stored.
func readDrawing(data []byte) (*Drawing, error) {
	var d Drawing
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '"' {
		if err := json.Unmarshal(data, &d); err != nil {
			return nil, err
		}
		return &d, nil
	}
	var b64 []byte
	if len(data) >= 2 && data[len(data)-1] == '"' && bytes.IndexByte(data[1:len(data)-1], '\\') < 0 {
		b64 = data[1 : len(data)-1]
	} else {
		// escaped (base64 needs no escapes, but a store may add them)
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, err
		}
		b64 = []byte(s)
	}
	bin := make([]byte, base64.StdEncoding.DecodedLen(len(b64)))
	n, err := base64.StdEncoding.Decode(bin, b64)
	if err != nil {
		return nil, err
	}
	if err := d.UnmarshalBinary(bin[:n]); err != nil {
		return nil, err
	}
	return &d, nil
}

// The binary form's values appended to b (see binaryVersion), by
// functions rather than methods on a writer: b, a local, is set without
// the write barrier a field of a writer's would cost while the collector
// runs.

func appendInt(b []byte, v int) []byte { return binary.AppendVarint(b, int64(v)) }

func appendCount(b []byte, n int) []byte { return binary.AppendUvarint(b, uint64(n)) }

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendStrings(b []byte, s []string) []byte {
	b = appendCount(b, len(s))
	for _, x := range s {
		b = appendString(b, x)
	}
	return b
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendFloat(b []byte, f float64) []byte {
	return binary.AppendUvarint(b, bits.ReverseBytes64(math.Float64bits(f)))
}

func appendLayout(b []byte, l *engine.Layout) []byte {
	b = appendFloat(b, l.Width)
	b = appendFloat(b, l.Height)
	b = appendCount(b, len(l.Cells))
	for i := range l.Cells {
		c := &l.Cells[i]
		b = appendString(b, c.Name)
		b = appendFloat(b, c.X)
		b = appendFloat(b, c.Y)
		b = appendString(b, c.Shape)
		b = appendInt(b, c.Height)
		b = appendString(b, c.Mark)
		b = appendInt(b, c.Owner)
		b = appendPieces(b, c.Pieces)
		b = appendBool(b, c.Stacked)
		b = appendPieces(b, c.Under)
	}
	b = appendCount(b, len(l.Labels))
	for _, lb := range l.Labels {
		b = appendString(b, lb.Text)
		b = appendFloat(b, lb.X)
		b = appendFloat(b, lb.Y)
	}
	b = appendCount(b, len(l.Holdings))
	for i := range l.Holdings {
		h := &l.Holdings[i]
		b = appendInt(b, h.Side)
		b = appendString(b, h.Name)
		b = appendPieces(b, h.Pieces)
		b = appendInt(b, h.Count)
	}
	b = appendStrings(b, l.Sides)
	b = appendStrings(b, l.Colours)
	b = appendInt(b, l.ToMove)
	return appendString(b, l.Status)
}

func appendPieces(b []byte, ps []engine.Piece) []byte {
	b = appendCount(b, len(ps))
	for i := range ps {
		p := &ps[i]
		b = appendInt(b, p.Side)
		b = appendString(b, p.Letter)
		b = appendString(b, p.Name)
		b = appendInt(b, p.Size)
		b = appendString(b, p.State)
	}
	return b
}

// binReader reads the binary form of a drawing from s, at i; err is the
// first thing it could not read, after which every read gives a zero
// value. It moves i, not s: setting an int needs no write barrier.
type binReader struct {
	s   string
	i   int
	err error
}

func (r *binReader) fail(format string, a ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("picture: "+format, a...)
		r.i = len(r.s)
	}
}

// left is the number of bytes not read.
func (r *binReader) left() int { return len(r.s) - r.i }

func (r *binReader) uvarint() uint64 {
	// as binary.Uvarint reads one
	var v uint64
	for k := 0; r.i+k < len(r.s) && k < binary.MaxVarintLen64; k++ {
		c := r.s[r.i+k]
		if c < 0x80 {
			if k == binary.MaxVarintLen64-1 && c > 1 {
				break
			}
			r.i += k + 1
			return v | uint64(c)<<(7*k)
		}
		v |= uint64(c&0x7f) << (7 * k)
	}
	r.fail("a number cut short or too long")
	return 0
}

func (r *binReader) int() int {
	u := r.uvarint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	if int64(int(v)) != v {
		r.fail("%d is beyond an int", v)
		return 0
	}
	return int(v)
}

// count reads a count of things of at least min bytes each, which the
// bytes left must hold: no hostile count makes a large slice.
func (r *binReader) count(min int) int {
	n := r.uvarint()
	if n > uint64(r.left()/min) {
		r.fail("%d things in %d bytes", n, r.left())
		return 0
	}
	return int(n)
}

func (r *binReader) str() string {
	n := r.count(1)
	s := r.s[r.i : r.i+n]
	r.i += n
	return s
}

func (r *binReader) strs() []string {
	n := r.count(1)
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = r.str()
	}
	return out
}

func (r *binReader) bool() bool {
	if r.left() == 0 || r.s[r.i] > 1 {
		r.fail("not a bool")
		return false
	}
	r.i++
	return r.s[r.i-1] == 1
}

func (r *binReader) float() float64 {
	f := math.Float64frombits(bits.ReverseBytes64(r.uvarint()))
	if math.IsNaN(f) || math.IsInf(f, 0) {
		r.fail("%v is not a coordinate", f)
		return 0
	}
	return f
}

// The fewest bytes a cell, label, holding and piece take.
const minCell, minLabel, minHolding, minPiece = 10, 3, 4, 5

func (r *binReader) layout() *engine.Layout {
	l := &engine.Layout{Width: r.float(), Height: r.float()}
	if n := r.count(minCell); n > 0 {
		l.Cells = make([]engine.Cell, n)
		for i := range l.Cells {
			c := &l.Cells[i]
			c.Name = r.str()
			c.X = r.float()
			c.Y = r.float()
			c.Shape = r.str()
			c.Height = r.int()
			c.Mark = r.str()
			c.Owner = r.int()
			c.Pieces = r.pieces()
			c.Stacked = r.bool()
			c.Under = r.pieces()
		}
	}
	if n := r.count(minLabel); n > 0 {
		l.Labels = make([]engine.Label, n)
		for i := range l.Labels {
			lb := &l.Labels[i]
			lb.Text = r.str()
			lb.X = r.float()
			lb.Y = r.float()
		}
	}
	if n := r.count(minHolding); n > 0 {
		l.Holdings = make([]engine.Holding, n)
		for i := range l.Holdings {
			h := &l.Holdings[i]
			h.Side = r.int()
			h.Name = r.str()
			h.Pieces = r.pieces()
			h.Count = r.int()
		}
	}
	l.Sides = r.strs()
	l.Colours = r.strs()
	l.ToMove = r.int()
	l.Status = r.str()
	return l
}

func (r *binReader) pieces() []engine.Piece {
	n := r.count(minPiece)
	if n == 0 {
		return nil
	}
	out := make([]engine.Piece, n)
	for i := range out {
		p := &out[i]
		p.Side = r.int()
		p.Letter = r.str()
		p.Name = r.str()
		p.Size = r.int()
		p.State = r.str()
	}
	return out
}
