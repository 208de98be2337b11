package ziggurat43

import (
	"fmt"
	"strconv"
	"strings"

	"pbem/engine"
)

// The position notation (docs/NOTATION.md, "Positions"): the cells rank by
// rank from rank 5 down to rank 1, each rank from its first cell (f5, d4,
// c3, b2, a1) to its last, ranks joined by '/'; a piece is its letter, K H
// A C S for Red and k h a c s for Gold; a run of empty cells is its
// length. Then the side to move, R or G. The start is
// "3/7/SSS3sss/CCAS3sacc/KCHAS3sahck R".

var (
	_ engine.Positioner     = (*State)(nil)
	_ engine.PositionReader = Rules{}
)

// rankCells lists the cells of each rank, rank 1 first, from boardShape
// (the tables of init are not made yet when package variables are).
var rankCells = func() (r [Ranks][]Square) {
	for i, row := range boardShape {
		rank := Ranks - 1 - i
		for f := range Files {
			if row[f] == '#' {
				r[rank] = append(r[rank], MakeSquare(f, rank))
			}
		}
	}
	return r
}()

// Position writes the position in the notation above.
func (s *State) Position() string {
	var b strings.Builder
	for rank := Ranks - 1; rank >= 0; rank-- {
		empty := 0
		for _, q := range rankCells[rank] {
			p := s.board[q]
			if p == Empty {
				empty++
				continue
			}
			if empty > 0 {
				b.WriteString(strconv.Itoa(empty))
				empty = 0
			}
			b.WriteByte(pieceLetter(p))
		}
		if empty > 0 {
			b.WriteString(strconv.Itoa(empty))
		}
		if rank > 0 {
			b.WriteByte('/')
		}
	}
	b.WriteByte(' ')
	b.WriteByte("RG"[s.toMove])
	return b.String()
}

// pieceLetter is p's letter: upper case Red, lower case Gold.
func pieceLetter(p Piece) byte {
	c := p.Kind().Letter()
	if p.Side() == Gold {
		c |= 0x20
	}
	return c
}

// ParsePosition reads a position written as Position writes it; the game
// has no options.
func (r Rules) ParsePosition(o engine.Options, text string) (engine.State, error) {
	if _, err := r.Sides(o); err != nil {
		return nil, err
	}
	return ParsePosition(text)
}

const game = "ziggurat43"

// ParsePosition reads a position in the notation of Position. Errors are
// *engine.PositionError values with the column of the fault.
func ParsePosition(text string) (*State, error) {
	fs, err := engine.SplitPosition(game, text, "cells", "side to move")
	if err != nil {
		return nil, err
	}
	s := &State{kings: [2]Square{NoSquare, NoSquare}}
	f := fs[0]
	rank, i := Ranks-1, 0 // the rank being read and the index of its next cell
	want := func() string {
		return fmt.Sprintf("a piece (K H A C S Red, k h a c s Gold) or a count of empty cells for the %d cells of rank %d", len(rankCells[rank]), rank+1)
	}
	for k := 0; k < len(f.Text); k++ {
		c := f.Text[k]
		switch {
		case c == '/':
			if i != len(rankCells[rank]) {
				return nil, f.Errorf(game, k, want(), "rank %d has %d cells, not %d", rank+1, len(rankCells[rank]), i)
			}
			if rank == 0 {
				return nil, f.Errorf(game, k, "the side to move after rank 1", "a sixth rank")
			}
			rank, i = rank-1, 0
		case c >= '1' && c <= '9':
			n := int(c - '0')
			for k+1 < len(f.Text) && f.Text[k+1] >= '0' && f.Text[k+1] <= '9' {
				k++
				n = 10*n + int(f.Text[k]-'0')
			}
			if i+n > len(rankCells[rank]) {
				return nil, f.Errorf(game, k, want(), "%d empty cells overrun rank %d, which has %d cells", n, rank+1, len(rankCells[rank]))
			}
			i += n
		default:
			x := strings.IndexByte(Letters, c&^0x20)
			if x <= 0 {
				return nil, f.Errorf(game, k, want(), "%q is no piece", c)
			}
			if i >= len(rankCells[rank]) {
				return nil, f.Errorf(game, k, want(), "a piece beyond the %d cells of rank %d", len(rankCells[rank]), rank+1)
			}
			side := Red
			if c >= 'a' {
				side = Gold
			}
			q := rankCells[rank][i]
			kind := Kind(x)
			s.board[q] = MakePiece(side, kind)
			if kind == King {
				if s.kings[side] != NoSquare {
					return nil, f.Errorf(game, k, "one Priest-King per side", "a second %s Priest-King", sideNames[side])
				}
				s.kings[side] = q
			}
			i++
		}
	}
	if rank != 0 || i != len(rankCells[0]) {
		return nil, f.Errorf(game, len(f.Text), "5 ranks of 3, 7, 9, 11 and 13 cells, rank 5 first", "the cells end at rank %d after %d cells", rank+1, i)
	}
	switch fs[1].Text {
	case "R":
		s.toMove = Red
	case "G":
		s.toMove = Gold
	default:
		return nil, fs[1].Errorf(game, 0, "R or G", "no side %q", fs[1].Text)
	}
	if err := s.Check(); err != nil {
		return nil, &engine.PositionError{Game: game, Msg: strings.TrimPrefix(err.Error(), game+": ")}
	}
	return s, nil
}
