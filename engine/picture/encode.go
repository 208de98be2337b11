package picture

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"sync"

	"github.com/klauspost/compress/zlib"
)

// A PNG is written here rather than by image/png, whose encoder spends
// twice the time in the standard library's deflate: the picture is
// already a byte a pixel in fullPalette, laid out as the PNG's image data
// (rows), so that only the chunks are written around it and the rows
// compressed by klauspost/compress, a drop-in deflate that is several
// times faster at the same size. The pixels decode as image/png's did.

// pngLevel is the deflate level of a PNG's pixels: at 1 the pictures
// compress at several hundred megabytes a second and come out at most a
// few percent larger than at higher levels (BenchmarkPNGLevels).
var pngLevel = zlib.BestSpeed

// paletted returns a w x h image in fullPalette whose pixels lie in rows
// as a PNG's unfiltered image data: each row after its filter byte,
// which is 0 (no filter), so that rows is written as it is. Rows holds
// (w+1)*h bytes; its filter bytes are set here and no pixel covers them.
func paletted(rows []byte, w, h int) *image.Paletted {
	for y := range h {
		rows[y*(w+1)] = 0
	}
	return &image.Paletted{Pix: rows[1:], Stride: w + 1, Rect: image.Rect(0, 0, w, h), Palette: fullPalette}
}

// zwriters lends the compressors of PNGs being written.
var zwriters sync.Pool

// writePNG appends to out a PNG of w x h pixels in fullPalette given as
// rows (see paletted): the signature, IHDR, PLTE (and tRNS), a single
// IDAT and IEND, which image/png and every reader of mail decode.
func writePNG(out *bytes.Buffer, w, h int, rows []byte) error {
	out.WriteString("\x89PNG\r\n\x1a\n")
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	// 8 bits a pixel, paletted, deflate, filters of method 0, no
	// interlace
	ihdr[8], ihdr[9] = 8, 3
	writeChunk(out, "IHDR", ihdr[:])
	out.Write(paletteChunks)
	// IDAT: its length is known once its data is compressed in place
	start := out.Len()
	out.WriteString("\x00\x00\x00\x00IDAT")
	z, _ := zwriters.Get().(*zlib.Writer)
	if z == nil {
		var err error
		if z, err = zlib.NewWriterLevel(out, pngLevel); err != nil {
			return err
		}
	} else {
		z.Reset(out)
	}
	defer zwriters.Put(z)
	if _, err := z.Write(rows); err != nil {
		return err
	}
	if err := z.Close(); err != nil {
		return err
	}
	z.Reset(nil) // out is not kept by the pool
	b := out.Bytes()
	binary.BigEndian.PutUint32(b[start:], uint32(len(b)-start-8))
	out.Write(binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(b[start+4:])))
	writeChunk(out, "IEND", nil)
	return nil
}

// writeChunk appends a PNG chunk: length, type, data and CRC.
func writeChunk(out *bytes.Buffer, typ string, data []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(data)))
	out.Write(n[:])
	start := out.Len()
	out.WriteString(typ)
	out.Write(data)
	binary.BigEndian.PutUint32(n[:], crc32.ChecksumIEEE(out.Bytes()[start:]))
	out.Write(n[:])
}

// paletteChunks are the PLTE chunk of fullPalette and, if any of its
// colours is not opaque, its tRNS, as image/png writes them.
var paletteChunks = func() []byte {
	var out bytes.Buffer
	plte := make([]byte, 0, 3*len(fullPalette))
	trns := make([]byte, 0, len(fullPalette))
	last := -1 // the last colour not opaque
	for i, c := range fullPalette {
		n := color.NRGBAModel.Convert(c).(color.NRGBA)
		plte = append(plte, n.R, n.G, n.B)
		trns = append(trns, n.A)
		if n.A != 0xff {
			last = i
		}
	}
	writeChunk(&out, "PLTE", plte)
	if last >= 0 {
		writeChunk(&out, "tRNS", trns[:last+1])
	}
	return out.Bytes()
}()
