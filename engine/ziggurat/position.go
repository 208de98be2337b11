package ziggurat

import (
	"fmt"
	"strconv"
	"strings"

	"pbem/engine"
)

// The position notation (docs/NOTATION.md, "Positions"), five fields:
//   - the board rank by rank from rank 6 down to rank 1, each rank from
//     file a to f, ranks joined by '/': a zig is its letter (Q D W South,
//     q d w North), a stack its pieces bottom to top in brackets ("[WQd]"),
//     a run of empty squares its length;
//   - the reserves: South's pieces then North's, Q D W order ("-" for none);
//   - the exited pieces, written the same way;
//   - the side to move, S or N;
//   - the passes played in a row just before (0, 1 or 2).
//
// The start with South to move is "qdwwdq/6/6/6/6/QDWWDQ QDWqdw - S 0".

var (
	_ engine.Positioner     = (*State)(nil)
	_ engine.PositionReader = Rules{}
)

// Position writes the position in the notation above.
func (s *State) Position() string {
	b := make([]byte, 0, 64)
	for r := Ranks; r >= 1; r-- {
		empty := 0
		for f := range Files {
			st := s.board[SquareAt(f, r).idx()]
			if st == 0 {
				empty++
				continue
			}
			if empty > 0 {
				b = strconv.AppendInt(b, int64(empty), 10)
				empty = 0
			}
			b = append(b, st.String()...)
		}
		if empty > 0 {
			b = strconv.AppendInt(b, int64(empty), 10)
		}
		if r > 1 {
			b = append(b, '/')
		}
	}
	b = append(b, ' ')
	b = s.appendPieces(b, func(side int, size Unit) int { return int(s.reserve[side][size]) })
	b = append(b, ' ')
	b = s.appendPieces(b, func(side int, size Unit) int {
		if s.exited[side][size] {
			return 1
		}
		return 0
	})
	b = append(b, ' ', "SN"[s.toMove], ' ')
	b = strconv.AppendInt(b, int64(s.passes), 10)
	return string(b)
}

// appendPieces writes n(side, size) pieces of each side and size, South
// first, Q D W order, or "-" for none.
func (s *State) appendPieces(b []byte, n func(side int, size Unit) int) []byte {
	k := len(b)
	for side := range 2 {
		for size := Queen; size >= Worker; size-- {
			for range n(side, size) {
				b = append(b, MakePiece(side, size).Letter())
			}
		}
	}
	if len(b) == k {
		b = append(b, '-')
	}
	return b
}

// ParsePosition reads a position written as Position writes it. The side
// to move is the text's; o.First only has to be a side.
func (r Rules) ParsePosition(o engine.Options, text string) (engine.State, error) {
	if err := checkOptions(o); err != nil {
		return nil, err
	}
	return ParsePosition(text)
}

const game = "ziggurat"

// pieceOf returns the piece of a letter (Q D W South, q d w North).
func pieceOf(c byte) (Piece, bool) {
	u := UnitOfLetter(c)
	if !u.IsZig() {
		return 0, false
	}
	side := South
	if c >= 'a' {
		side = North
	}
	return MakePiece(side, u), true
}

// ParsePosition reads a position in the notation of Position. Errors are
// *engine.PositionError values with the column of the fault.
func ParsePosition(text string) (*State, error) {
	fs, err := engine.SplitPosition(game, text, "board", "reserves", "exited pieces", "side to move", "passes")
	if err != nil {
		return nil, err
	}
	p := Setup{Board: map[Square]Stack{}}
	f := fs[0]
	const wantSquare = "a zig (Q D W South, q d w North), a stack in brackets such as [WQd], or a count of empty squares"
	r, file := Ranks, 0
	for k := 0; k < len(f.Text); k++ {
		c := f.Text[k]
		switch {
		case c == '/':
			if file != Files {
				return nil, f.Errorf(game, k, wantSquare, "rank %d has %d squares, not %d", r, Files, file)
			}
			if r == 1 {
				return nil, f.Errorf(game, k, "the reserves after rank 1", "a seventh rank")
			}
			r, file = r-1, 0
			continue
		case c >= '1' && c <= '9':
			if n := int(c - '0'); file+n > Files {
				return nil, f.Errorf(game, k, wantSquare, "%d empty squares overrun rank %d", n, r)
			} else {
				file += n
			}
			continue
		}
		if file == Files {
			return nil, f.Errorf(game, k, "'/' between ranks", "a seventh square on rank %d", r)
		}
		q := SquareAt(file, r)
		if c == '[' {
			end := strings.IndexByte(f.Text[k:], ']')
			if end < 0 {
				return nil, f.Errorf(game, len(f.Text), "']' after the pieces of a stack", "the stack on %v is not closed", q)
			}
			inner := f.Text[k+1 : k+end]
			if len(inner) < 2 || len(inner) > MaxHeight {
				return nil, f.Errorf(game, k, fmt.Sprintf("2 to %d pieces in brackets; a lone zig without them", MaxHeight), "a stack of %d pieces on %v", len(inner), q)
			}
			var st Stack
			for i := range len(inner) {
				pc, ok := pieceOf(inner[i])
				if !ok {
					return nil, f.Errorf(game, k+1+i, "Q D W (South) or q d w (North)", "%q in the stack on %v is no piece", inner[i], q)
				}
				st = st.push(pc)
			}
			p.Board[q] = st
			k += end
		} else {
			pc, ok := pieceOf(c)
			if !ok {
				return nil, f.Errorf(game, k, wantSquare, "%q on %v is no unit", c, q)
			}
			p.Board[q] = StackOf(pc)
		}
		file++
	}
	if r != 1 || file != Files {
		return nil, f.Errorf(game, len(f.Text), "6 ranks of 6 squares, rank 6 first", "the board ends at rank %d after %d squares", r, file)
	}
	for i, dst := range []*[2][4]int{&p.Reserve, nil} {
		f := fs[1+i]
		if f.Text == "-" {
			continue
		}
		for k := range len(f.Text) {
			pc, ok := pieceOf(f.Text[k])
			if !ok {
				return nil, f.Errorf(game, k, "Q D W (South) and q d w (North), or - for none", "%q is no piece", f.Text[k])
			}
			if dst != nil {
				dst[pc.Side()][pc.Size()]++
			} else if p.Exited[pc.Side()][pc.Size()] {
				return nil, f.Errorf(game, k, "at most one exited piece of each size per side", "a second exited %s of %s", pc.Size(), sideNames[pc.Side()])
			} else {
				p.Exited[pc.Side()][pc.Size()] = true
			}
		}
	}
	switch fs[3].Text {
	case "S":
		p.ToMove = South
	case "N":
		p.ToMove = North
	default:
		return nil, fs[3].Errorf(game, 0, "S or N", "no side %q", fs[3].Text)
	}
	n, err := strconv.Atoi(fs[4].Text)
	if err != nil || n < 0 || n > PassesToDraw || fs[4].Text != strconv.Itoa(n) {
		return nil, fs[4].Errorf(game, 0, fmt.Sprintf("the passes played in a row, 0 to %d", PassesToDraw), "bad count of passes %q", fs[4].Text)
	}
	p.Passes = n
	s, err := NewState(p)
	if err != nil {
		return nil, &engine.PositionError{Game: game, Msg: strings.TrimPrefix(err.Error(), game+": ")}
	}
	return s, nil
}
