package picture

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"

	"github.com/klauspost/compress/flate"
)

// A PNG is written here rather than by image/png, whose encoder spends
// twice the time in the standard library's deflate: the picture is
// already a byte a pixel in fullPalette, laid out as the PNG's image data
// (rows), so that only the chunks are written around it and the rows
// compressed by klauspost/compress, a drop-in deflate that is several
// times faster at the same size. Its zlib stream's Adler-32 is summed
// here too (adler32Sum), in half the time of hash/adler32's, which was a
// quarter of the encoding. The pixels decode as image/png's did.

// pngLevel is the deflate level of a PNG's pixels: at 1 the pictures
// compress at several hundred megabytes a second and come out at most a
// few percent larger than at higher levels (BenchmarkPNGLevels).
var pngLevel = flate.BestSpeed

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

// zwriters keeps a compressor for each PNG that can be written at once
// (drawing). A compressor is hundreds of kilobytes: a sync.Pool, which
// every collection empties, had them made again after each, a third of
// what drawing a picture allocated under load.
var zwriters = make(chan *flate.Writer, cap(drawing))

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
	// IDAT: its length is known once its data is compressed in place;
	// the data is a zlib stream (RFC 1950): a header (deflate, a window
	// of 32 KB, the fastest level), the deflate of the rows and their
	// Adler-32
	start := out.Len()
	out.WriteString("\x00\x00\x00\x00IDAT\x78\x01")
	var z *flate.Writer
	select {
	case z = <-zwriters:
		z.Reset(out)
	default:
		var err error
		if z, err = flate.NewWriter(out, pngLevel); err != nil {
			return err
		}
	}
	defer func() {
		select {
		case zwriters <- z:
		default: // as many kept as can be used at once
		}
	}()
	if _, err := z.Write(rows); err != nil {
		return err
	}
	if err := z.Close(); err != nil {
		return err
	}
	z.Reset(nil) // out is not kept by the pool
	out.Write(binary.BigEndian.AppendUint32(nil, adler32Sum(rows)))
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

// adler32Sum is hash/adler32.Checksum(p), summed 64 bytes at a time: the
// bytes of each 8 in two words of four 16-bit lanes (even and odd bytes),
// whose running sums (se, so) and sums of running sums (te, to) are added
// lane by lane, without a carry between lanes for 8 words, and then
// weighted and summed across lanes. hash/adler32 adds byte by byte, each
// sum waiting for the one before.
func adler32Sum(p []byte) uint32 {
	const mod = 65521
	const even = 0x00ff00ff00ff00ff
	s1, s2 := uint64(1), uint64(0)
	for len(p) >= 64 {
		// 64 bytes at a time, then modulo every 4 KB: s1 and s2 stay far
		// below 2^64
		for g := 0; g < 64 && len(p) >= 64; g++ {
			q := p[:64:64]
			var se, so, te, to uint64
			for j := 0; j < 64; j += 8 {
				v := binary.LittleEndian.Uint64(q[j:])
				te += se
				to += so
				se += v & even
				so += v >> 8 & even
			}
			// a byte at k of the 64 adds (64-k) times itself to s2:
			// (8-k%8) for its place in its word, through we and wo, and
			// 8 for each word after its own, through te and to
			we := se * 0x0008000600040002 >> 48 // bytes 0, 2, 4, 6: 8, 6, 4, 2
			wo := so * 0x0007000500030001 >> 48 // bytes 1, 3, 5, 7: 7, 5, 3, 1
			s2 += 64*s1 + we + wo + 8*(lanes32(te)+lanes32(to))
			s1 += se*0x0001000100010001>>48 + so*0x0001000100010001>>48
			p = p[64:]
		}
		s1 %= mod
		s2 %= mod
	}
	for _, c := range p {
		s1 += uint64(c)
		s2 += s1
	}
	return uint32(s2%mod)<<16 | uint32(s1%mod)
}

// lanes32 sums the four 16-bit lanes of x, whose sum may not fit in 16.
func lanes32(x uint64) uint64 {
	x = x&0x0000ffff0000ffff + x>>16&0x0000ffff0000ffff
	return x&0xffffffff + x>>32
}
