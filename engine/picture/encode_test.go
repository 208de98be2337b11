package picture

import (
	"bytes"
	"hash/adler32"
	"image/png"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"pbem/engine"
)

// TestAdler32Sum: adler32Sum is hash/adler32's checksum, for every length
// up to several of its 4 KB rounds and for bytes that are random, all 0
// or all 0xff (the largest sums its lanes hold).
func TestAdler32Sum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, fill := range []int{-1, 0, 0xff} {
		for n := 0; n < 20000; n += 1 + r.IntN(61) {
			p := make([]byte, n)
			for i := range p {
				p[i] = byte(fill)
				if fill < 0 {
					p[i] = byte(r.Uint32())
				}
			}
			if got, want := adler32Sum(p), adler32.Checksum(p); got != want {
				t.Fatalf("%d bytes of %d: %08x, want %08x", n, fill, got, want)
			}
		}
	}
}

// TestPNGChecksums: image/png checks the Adler-32 of the rows (and the
// CRCs), so that the tests that decode PNGs check the sums written.
func TestPNGChecksums(t *testing.T) {
	l := &engine.Layout{Width: 1, Height: 1, Cells: []engine.Cell{{Name: "a1", X: 0.5, Y: 0.5, Shape: engine.SquareCell, Owner: -1}}}
	data, err := PNG(l, nil, 0)
	require.NoError(t, err)
	_, err = png.Decode(bytes.NewReader(data))
	require.NoError(t, err)
	// the Adler-32 is the last 4 bytes of IDAT's data, before its CRC
	// and the 12 bytes of IEND
	bad := bytes.Clone(data)
	bad[len(bad)-12-4-1] ^= 1
	_, err = png.Decode(bytes.NewReader(bad))
	require.Error(t, err, "a wrong Adler-32 decodes")
}

// BenchmarkAdler32Sum sums the rows of a castles board's size.
func BenchmarkAdler32Sum(b *testing.B) {
	p := make([]byte, 70000) // the rows of a castles board
	for i := range p {
		p[i] = byte(i * 7 / 13)
	}
	b.Run("hash/adler32", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			adler32.Checksum(p)
		}
	})
	b.Run("adler32Sum", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			adler32Sum(p)
		}
	})
}
