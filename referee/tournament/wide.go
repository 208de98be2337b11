package tournament

import "math/bits"

// wideWords is the size of a wide weight in 64-bit words. The Dutch
// weights stack a field per criterion, most sized by the score groups; a
// field of 200 players over 9 rounds needs some 700 bits.
const wideWords = 12

// wide is a signed integer of wideWords words (two's complement, the
// lowest word first): the edge weight of the Dutch system's matchings.
type wide [wideWords]uint64

// wideBits is the number of bits a wide holds, the sign bit included.
const wideBits = 64 * wideWords

func wideOf(v uint64) wide { return wide{v} }

func (a wide) add(b wide) wide {
	var c uint64
	for i := range a {
		a[i], c = bits.Add64(a[i], b[i], c)
	}
	return a
}

func (a wide) sub(b wide) wide {
	var c uint64
	for i := range a {
		a[i], c = bits.Sub64(a[i], b[i], c)
	}
	return a
}

// shl returns a shifted left by k bits.
func (a wide) shl(k int) wide {
	if k <= 0 {
		return a
	}
	w, r := k/64, uint(k%64)
	var out wide
	for i := wideWords - 1; i >= w; i-- {
		out[i] = a[i-w] << r
		if r > 0 && i-w-1 >= 0 {
			out[i] |= a[i-w-1] >> (64 - r)
		}
	}
	return out
}

func (a wide) or(v uint64) wide { a[0] |= v; return a }

func (a wide) isZero() bool { return a == wide{} }
