package notation

import (
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
)

// readFast builds the Record of a game in the ordinary shape (tags, then
// plies with move numbers, annotations, NAGs, comments and variations, then
// a result) straight from its tokens, as the grammar and build would. It
// returns nil for anything else, including every game with a problem: the
// grammar stays the definition and reports those (FuzzReaders keeps the two
// equal).
func readFast(file string, n int, toks []lexer.Token) *Record { return readFastIn(nil, file, n, toks) }

// readFastIn is readFast taking the record's memory from m (nil: allocated).
func readFastIn(m *gameMem, file string, n int, toks []lexer.Token) *Record {
	if len(toks) == 0 {
		return nil
	}
	i := 0
	for i+3 < len(toks) && toks[i].Type == tLBrack {
		i += 4
	}
	r := m.record()
	r.File, r.Index, r.Pos = file, n, toPos(toks[0].Pos)
	if i > 0 {
		r.Tags = m.tagSlab(i / 4)
	}
	i = 0
	for i+3 < len(toks) && toks[i].Type == tLBrack {
		name, value, end := toks[i+1], toks[i+2], toks[i+3]
		if name.Type != tWord || value.Type != tString || end.Type != tRBrack {
			return nil
		}
		v, ok := unquoteFast(value.Value)
		if !ok {
			return nil
		}
		r.Tags = append(r.Tags, Tag{Name: name.Value, Value: v, Pos: toPos(toks[i].Pos)})
		i += 4
	}
	f := fastReader{toks: toks, i: i, mem: m}
	// The plies of the game, in a few allocations.
	for _, t := range toks[i:] {
		if t.Type == tWord {
			f.words++
		}
	}
	f.slab = m.plySlab(min(f.words, plySlab))
	main, ok := f.line(0)
	if !ok || f.i+1 >= len(toks) || toks[f.i].Type != tResult || toks[f.i+1].Type != tEOF {
		return nil
	}
	r.Main = main
	r.Result, r.ResultPos = toks[f.i].Value, toPos(toks[f.i].Pos)
	return r
}

type fastReader struct {
	toks  []lexer.Token
	i     int
	words int   // plies of the game (words of its movetext)
	used  int   // plies read
	slab  []Ply // room for the next plies
	mem   *gameMem
}

// plySlab is how many plies are allocated together: a game's plies are
// allocated plySlab at a time, so that a long game makes small objects
// (under 32 KB), not one large one.
const plySlab = 128

// line reads elements up to a result (depth 0) or ")" (inside a
// variation), which it leaves unread.
func (f *fastReader) line(depth int) (*Line, bool) {
	l := f.mem.line()
	if depth == 0 && f.words > 0 {
		l.Plies = f.mem.plyPtrs(f.words)
	}
	var last *Ply
	var num *lexer.Token
	for ; f.i < len(f.toks); f.i++ {
		t := &f.toks[f.i]
		if num != nil && t.Type != tWord && t.Type != tComment {
			return nil, false
		}
		switch t.Type {
		case tNumber:
			num = t
		case tWord:
			if len(f.slab) == cap(f.slab) {
				f.slab = f.mem.plySlab(max(min(f.words-f.used, plySlab), 1))
			}
			f.used++
			// Filled in place: the slab's room is zero already, and a
			// Ply is large to copy.
			f.slab = f.slab[:len(f.slab)+1]
			last = &f.slab[len(f.slab)-1]
			last.Text, last.Pos = t.Value, toPos(t.Pos)
			if num != nil {
				digits := strings.TrimRight(num.Value, ".")
				dots := len(num.Value) - len(digits)
				v, err := strconv.Atoi(digits)
				if err != nil || (dots != 1 && dots != 3) {
					return nil, false
				}
				last.HasNumber, last.Number, last.Continues = true, v, dots == 3
				last.NumberPos, last.NumberTok = toPos(num.Pos), num.Value
				num = nil
			}
			l.Plies = append(l.Plies, last)
		case tAnnot:
			if last == nil {
				return nil, false
			}
			last.Annots = append(last.Annots, t.Value)
		case tNAG:
			v, err := strconv.Atoi(t.Value[1:])
			if last == nil || err != nil || v > 255 {
				return nil, false
			}
			last.NAGs = append(last.NAGs, v)
		case tComment:
			c := commentText(t.Value)
			if last == nil {
				l.Comments = append(l.Comments, c)
			} else {
				last.Comments = append(last.Comments, c)
			}
		case tLParen:
			if last == nil || depth >= MaxDepth {
				return nil, false
			}
			pos := toPos(t.Pos)
			f.i++
			v, ok := f.line(depth + 1)
			if !ok || f.i >= len(f.toks) || f.toks[f.i].Type != tRParen || len(v.Plies) == 0 {
				return nil, false
			}
			v.Pos = pos
			last.Variations = append(last.Variations, v)
		case tRParen:
			if depth == 0 {
				return nil, false
			}
			return l, true
		case tResult:
			if depth > 0 {
				return nil, false
			}
			return l, true
		default:
			return nil, false
		}
	}
	return nil, false
}

// unquoteFast is unquote for values without a bad escape.
func unquoteFast(s string) (string, bool) {
	v, err := unquote(s)
	return v, err == nil
}
