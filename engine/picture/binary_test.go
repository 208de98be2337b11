package picture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"pbem/engine"
	"pbem/engine/enginetest"
)

// fill sets every field reachable from v, which must be settable, to a
// value of its own, not zero and unlike the others (slices get two
// elements, pointers a value), so that a field a codec forgets is seen.
// A field of a kind it cannot fill fails the test: the codec must learn
// that kind first.
func fill(t *testing.T, v reflect.Value, path string, n *int) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", *n))
	case reflect.Int, reflect.Int64, reflect.Int32:
		// negative and positive, small and large
		x := int64(*n) * 1000003
		if *n%2 == 1 {
			x = -x
		}
		v.SetInt(x)
	case reflect.Float64:
		v.SetFloat(float64(*n) + 0.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fill(t, v.Index(i), fmt.Sprintf("%s[%d]", path, i), n)
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(t, v.Elem(), path, n)
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				t.Fatalf("%s.%s is not exported: the binary form cannot hold it", path, f.Name)
			}
			fill(t, v.Field(i), path+"."+f.Name, n)
		}
	default:
		t.Fatalf("%s is a %s, which the test (and the binary form) cannot fill yet", path, v.Kind())
	}
}

// TestDrawingBinaryEveryField: a Drawing with every field of its
// engine.Layout and Options set reads back from its binary form and from
// its stored JSON as it was; a field added to engine.Layout or Options
// fails here until MarshalBinary and UnmarshalBinary know it.
func TestDrawingBinaryEveryField(t *testing.T) {
	var d Drawing
	n := 0
	fill(t, reflect.ValueOf(&d).Elem(), "Drawing", &n)
	d.Cell = 23
	bin, err := d.MarshalBinary()
	require.NoError(t, err)
	var back Drawing
	require.NoError(t, back.UnmarshalBinary(bin))
	require.Equal(t, d, back)

	stored, err := d.JSON()
	require.NoError(t, err)
	require.True(t, json.Valid(stored), "stored as JSON")
	got, err := readDrawing(stored)
	require.NoError(t, err)
	require.Equal(t, d, *got)
	// as the archive gives it back: the same string escaped
	escaped := strings.ReplaceAll(string(stored), "/", `\/`)
	escaped = strings.ReplaceAll(escaped, "+", `\u002b`)
	got, err = readDrawing([]byte(" " + escaped + "\n"))
	require.NoError(t, err)
	require.Equal(t, d, *got)
	// and the object earlier versions stored
	old, err := json.Marshal(d)
	require.NoError(t, err)
	got, err = readDrawing(old)
	require.NoError(t, err)
	require.Equal(t, d, *got)
}

// TestDrawingBinaryRefuses: what is not a drawing's binary form is an
// error, never a panic nor a slice as large as a count claims.
func TestDrawingBinaryRefuses(t *testing.T) {
	l := &engine.Layout{Width: 1, Height: 1, Cells: []engine.Cell{{Name: "a1", X: 0.5, Y: 0.5, Owner: -1}}, Sides: []string{"A"}}
	good, err := (&Drawing{Layout: l}).MarshalBinary()
	require.NoError(t, err)
	for name, data := range map[string][]byte{
		"empty":         {},
		"other version": append([]byte{2}, good[1:]...),
		"cut short":     good[:len(good)-3],
		"more after":    append(good[:len(good):len(good)], 0),
		// a cell count of 2^62 in a few bytes
		"huge count": {binaryVersion, 0, 0, 1, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40},
		"not a bool": {binaryVersion, 0, 7},
		"overlong":   {binaryVersion, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},
	} {
		var d Drawing
		err := d.UnmarshalBinary(data)
		require.Error(t, err, name)
		t.Logf("%s: %v", name, err)
	}
	for _, f := range []float64{nanValue(), 1 / zero} {
		_, err := (&Drawing{Layout: &engine.Layout{Width: f}}).MarshalBinary()
		require.Error(t, err, "%v", f)
	}
	for _, stored := range []string{`"`, `"AAA`, `"!!!!"`, `"AQ=="`, `[]`, `{"layout":`} {
		_, err := DrawJSON([]byte(stored))
		require.ErrorContains(t, err, "drawing that does not read", stored)
	}
}

var zero float64

func nanValue() float64 { return zero / zero }

// FuzzDrawingBinary: whatever bytes UnmarshalBinary is given, it reads
// them or says they do not read, and a drawing it reads is written and
// read again the same, holding no more things than its form has bytes.
func FuzzDrawingBinary(f *testing.F) {
	for _, v := range variants {
		states, err := enginetest.Positions(v.rules, v.opts, 1, 1, 8)
		if err != nil {
			f.Fatal(err)
		}
		l := states[len(states)-1].(engine.Layouter).Layout(0)
		bin, err := (&Drawing{Layout: l, Options: &Options{Title: "Game #1", Marked: []string{l.Cells[0].Name}}}).MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(bin)
	}
	f.Add([]byte{binaryVersion, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		var d Drawing
		if d.UnmarshalBinary(data) != nil {
			return
		}
		if l := d.Layout; l != nil {
			things := len(l.Cells) + len(l.Labels) + len(l.Holdings) + len(l.Sides) + len(l.Colours)
			for _, c := range l.Cells {
				things += len(c.Pieces) + len(c.Under)
			}
			for _, h := range l.Holdings {
				things += len(h.Pieces)
			}
			if things > len(data) {
				t.Fatalf("%d things from %d bytes", things, len(data))
			}
		}
		bin, err := d.MarshalBinary()
		if err != nil {
			t.Fatalf("a drawing read does not write: %v", err)
		}
		var again Drawing
		if err := again.UnmarshalBinary(bin); err != nil {
			t.Fatalf("a drawing written does not read: %v", err)
		}
		if !reflect.DeepEqual(d, again) {
			t.Fatalf("read %+v, written and read again %+v", d, again)
		}
	})
}

// BenchmarkDrawing stores the Drawing of a position of each board as a
// mail does (Drawing.JSON), reads it back, and draws it from what is
// stored (DrawJSON), reporting the bytes stored; BenchmarkDrawingObject
// does the same with the JSON object stored before, which old mails
// hold.
func BenchmarkDrawing(b *testing.B) {
	benchmarkDrawing(b, func(d *Drawing) ([]byte, error) { return d.JSON() })
}

func BenchmarkDrawingObject(b *testing.B) {
	benchmarkDrawing(b, func(d *Drawing) ([]byte, error) { return json.Marshal(d) })
}

func benchmarkDrawing(b *testing.B, store func(*Drawing) ([]byte, error)) {
	states := largest(b)
	for _, v := range variants {
		l := states[v.name].(engine.Layouter).Layout(0)
		d := &Drawing{Layout: l, Options: &Options{Title: "Game #1", Marked: []string{l.Cells[0].Name}}}
		data, err := store(d)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(v.name+"/store", func(b *testing.B) {
			b.ReportAllocs()
			cpu := startCPU()
			for b.Loop() {
				if _, err := store(d); err != nil {
					b.Fatal(err)
				}
			}
			cpu.report(b)
			b.ReportMetric(float64(len(data)), "bytes")
		})
		b.Run(v.name+"/read", func(b *testing.B) {
			b.ReportAllocs()
			cpu := startCPU()
			for b.Loop() {
				if _, err := readDrawing(data); err != nil {
					b.Fatal(err)
				}
			}
			cpu.report(b)
		})
		b.Run(v.name+"/draw", func(b *testing.B) {
			b.ReportAllocs()
			var n int
			cpu := startCPU()
			for b.Loop() {
				png, err := DrawJSON(data)
				if err != nil {
					b.Fatal(err)
				}
				n = len(png)
			}
			cpu.report(b)
			b.ReportMetric(float64(n), "bytes")
		})
	}
}

// TestDrawJSONKeepsWhatItDrew: a drawing drawn again gives the PNG drawn
// the first time, not drawn anew (the same bytes, the same memory), and
// equal to what Drawing.PNG draws; another view of the board is another
// picture.
func TestDrawJSONKeepsWhatItDrew(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			st, err := v.rules.Start(v.opts)
			require.NoError(t, err)
			lo := st.(engine.Layouter)
			d := &Drawing{Layout: lo.Layout(0), Options: &Options{Title: "Game #" + v.name}}
			data, err := d.JSON()
			require.NoError(t, err)
			first, err := DrawJSON(data)
			require.NoError(t, err)
			again, err := DrawJSON(bytes.Clone(data))
			require.NoError(t, err)
			require.Same(t, unsafe.SliceData(first), unsafe.SliceData(again), "drawn again")
			want, err := d.PNG()
			require.NoError(t, err)
			require.Equal(t, want, again)

			other := &Drawing{Layout: lo.Layout(1), Options: d.Options}
			otherData, err := other.JSON()
			require.NoError(t, err)
			if string(otherData) == string(data) {
				return // the second seat sees the board as the first does
			}
			o, err := DrawJSON(otherData)
			require.NoError(t, err)
			want, err = other.PNG()
			require.NoError(t, err)
			require.Equal(t, want, o)
		})
	}
}
