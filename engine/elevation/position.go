package elevation

import (
	"fmt"
	"strconv"
	"strings"

	"pbem/engine"
)

// The position notation (docs/NOTATION.md, "Positions"): the squares rank
// by rank from rank 6 down to rank 1, each rank from file a to f, ranks
// joined by '/'; a square is its height (a number) followed by its piece,
// S F D for White, s f d for Black, or '.' for none. Then the side to
// move, W or B. The start is
// "3s3f3d3d3f3s/3.3.3.3.3.3./3.3.3.3.3.3./3.3.3.3.3.3./3.3.3.3.3.3./3S3F3D3D3F3S W".

var (
	_ engine.Positioner     = (*State)(nil)
	_ engine.PositionReader = Rules{}
)

// Position writes the position in the notation above.
func (s *State) Position() string {
	b := make([]byte, 0, 3*NumSquares+8)
	for r := Size - 1; r >= 0; r-- {
		for f := range Size {
			q := Sq(f, r)
			b = strconv.AppendInt(b, int64(s.h[q]), 10)
			b = append(b, s.cell[q].Letter())
		}
		if r > 0 {
			b = append(b, '/')
		}
	}
	b = append(b, ' ', "WB"[s.toMove])
	return string(b)
}

// ParsePosition reads a position written as Position writes it; the game
// has no options.
func (r Rules) ParsePosition(o engine.Options, text string) (engine.State, error) {
	if _, err := r.Sides(o); err != nil {
		return nil, err
	}
	return ParsePosition(text)
}

const game = "elevation"

// ParsePosition reads a position in the notation of Position. Errors are
// *engine.PositionError values with the column of the fault.
func ParsePosition(text string) (*State, error) {
	fs, err := engine.SplitPosition(game, text, "squares", "side to move")
	if err != nil {
		return nil, err
	}
	s := &State{}
	f := fs[0]
	r, file := Size-1, 0
	const wantSquare = "a height and a piece (S F D White, s f d Black, . none), e.g. 3S or 2."
	for k := 0; k < len(f.Text); k++ {
		c := f.Text[k]
		if c == '/' {
			if file != Size {
				return nil, f.Errorf(game, k, wantSquare, "rank %d has %d squares, not %d", r+1, Size, file)
			}
			if r == 0 {
				return nil, f.Errorf(game, k, "the side to move after rank 1", "a seventh rank")
			}
			r, file = r-1, 0
			continue
		}
		if file == Size {
			return nil, f.Errorf(game, k, "'/' between ranks", "a seventh square on rank %d", r+1)
		}
		start := k
		h := 0
		for k < len(f.Text) && f.Text[k] >= '0' && f.Text[k] <= '9' {
			h = 10*h + int(f.Text[k]-'0')
			if h > TotalTiles {
				return nil, f.Errorf(game, start, fmt.Sprintf("a height of at most %d", TotalTiles), "height too large")
			}
			k++
		}
		q := Sq(file, r)
		if k == start {
			return nil, f.Errorf(game, k, wantSquare, "%v has no height", q)
		}
		if k == len(f.Text) {
			return nil, f.Errorf(game, k, wantSquare, "%v has no piece or '.'", q)
		}
		if c := f.Text[k]; c != '.' {
			kind, ok := KindOf(c)
			if !ok {
				return nil, f.Errorf(game, k, wantSquare, "%q on %v is no piece", c, q)
			}
			side := White
			if c >= 'a' {
				side = Black
			}
			s.cell[q] = MakePiece(side, kind)
		}
		s.h[q] = uint8(h)
		file++
	}
	if r != 0 || file != Size {
		return nil, f.Errorf(game, len(f.Text), "6 ranks of 6 squares, rank 6 first", "the squares end at rank %d after %d squares", r+1, file)
	}
	switch fs[1].Text {
	case "W":
		s.toMove = White
	case "B":
		s.toMove = Black
	default:
		return nil, fs[1].Errorf(game, 0, "W or B", "no side %q", fs[1].Text)
	}
	if err := s.Check(); err != nil {
		return nil, &engine.PositionError{Game: game, Msg: strings.TrimPrefix(err.Error(), game+": ")}
	}
	return s, nil
}
