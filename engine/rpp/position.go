package rpp

import (
	"fmt"
	"strconv"
	"strings"

	"pbem/engine"
)

// The position notation (docs/NOTATION.md, "Positions"), eight fields:
//   - the board, e.g. square5;
//   - the number of seats;
//   - the occupied cells, in the board's cell order, joined by ',': the
//     cell, ':', the seat whose live pieces are there, then its pieces L,
//     M, S in that order, each upper case when free or outermost in a nest,
//     lower case when nested in the next larger one, and followed by '^'
//     when it tops an unresolved capture stack: "a1:RLms" (a full nest),
//     "c3:YL^S";
//   - the seat to move;
//   - the passes played in a row just before;
//   - the seats eliminated, in the order they went out ("-" for none);
//   - the unresolved capture stacks, in the order of their initiators,
//     joined by ',': the initiator, ':', the cell and size of the top,
//     ':', the pieces under it ("R:c3L:YMS");
//   - the capture piles, in seat order, joined by ',': the holder, ':',
//     the pieces in the pile ("G:RSS" "-" for none).
//
// A set of pieces ("YMSBLL") is, for each owner in seat order, the owner's
// letter followed by one letter per piece, L then M then S. Stacks and piles
// are "-" when there are none.

var (
	_ engine.Positioner     = (*State)(nil)
	_ engine.PositionReader = Rules{}
)

// Position writes the position in the notation above.
func (s *State) Position() string {
	b := s.board()
	var w strings.Builder
	w.WriteString(b.name)
	w.WriteByte(' ')
	w.WriteString(strconv.Itoa(int(s.seats)))
	w.WriteByte(' ')
	n := 0
	for c, cs := range s.cells() {
		if cs.owner == 0 {
			continue
		}
		if n > 0 {
			w.WriteByte(',')
		}
		n++
		w.WriteString(b.names[c])
		w.WriteByte(':')
		w.WriteByte(SeatLetters[cs.owner-1])
		for z := Large; z >= Small; z-- {
			switch cs.get(z) {
			case free:
				w.WriteByte(z.Letter())
			case nested:
				w.WriteByte(z.Letter() | 0x20)
			case top:
				w.WriteByte(z.Letter())
				w.WriteByte('^')
			}
		}
	}
	if n == 0 {
		w.WriteByte('-')
	}
	w.WriteByte(' ')
	w.WriteByte(SeatLetters[s.toMove])
	w.WriteByte(' ')
	w.WriteString(strconv.Itoa(int(s.passes)))
	w.WriteByte(' ')
	if s.nOut == 0 {
		w.WriteByte('-')
	}
	for e := int8(1); e <= s.nOut; e++ {
		for i := range s.seats {
			if s.out[i] == e {
				w.WriteByte(SeatLetters[i])
			}
		}
	}
	w.WriteByte(' ')
	n = 0
	for i := range s.seats {
		st := &s.stacks[i]
		if !st.on {
			continue
		}
		if n > 0 {
			w.WriteByte(',')
		}
		n++
		w.WriteByte(SeatLetters[i])
		w.WriteByte(':')
		w.WriteString(b.names[st.cell])
		w.WriteByte(st.size.Letter())
		w.WriteByte(':')
		s.writeSet(&w, &st.under)
	}
	if n == 0 {
		w.WriteByte('-')
	}
	w.WriteByte(' ')
	n = 0
	for h := range s.seats {
		empty := true
		for o := range s.seats {
			empty = empty && s.piles[h][o] == 0
		}
		if empty {
			continue
		}
		if n > 0 {
			w.WriteByte(',')
		}
		n++
		w.WriteByte(SeatLetters[h])
		w.WriteByte(':')
		s.writeSet(&w, &s.piles[h])
	}
	if n == 0 {
		w.WriteByte('-')
	}
	return w.String()
}

// writeSet writes a set of pieces by owner: the owner's letter, then a
// letter per piece, L M S order.
func (s *State) writeSet(w *strings.Builder, set *[MaxSeats]counts) {
	for o := range s.seats {
		if set[o] == 0 {
			continue
		}
		w.WriteByte(SeatLetters[o])
		for z := 2; z >= 0; z-- {
			for range set[o].n(z) {
				w.WriteByte(Size(z + 1).Letter())
			}
		}
	}
}

const game = "rpp"

// ParsePosition reads a position written as Position writes it. The text
// names its board and seats; options that name others are refused.
func (r Rules) ParsePosition(o engine.Options, text string) (engine.State, error) {
	s, err := ParsePosition(text)
	if err != nil {
		return nil, err
	}
	if o.Players != 0 && o.Players != int(s.seats) {
		return nil, fmt.Errorf("rpp: the position has %d seats, the game %d players", s.seats, o.Players)
	}
	if o.Board != "" && !strings.EqualFold(o.Board, s.board().name) {
		return nil, fmt.Errorf("rpp: the position is on %s, the game on %s", s.board().name, o.Board)
	}
	return s, nil
}

// ParsePosition reads a position in the notation of Position. Errors are
// *engine.PositionError values with the column of the fault.
func ParsePosition(text string) (*State, error) {
	fs, err := engine.SplitPosition(game, text, "board", "seats", "cells", "seat to move", "passes", "eliminated", "stacks", "piles")
	if err != nil {
		return nil, err
	}
	b := BoardByName(fs[0].Text)
	if b == nil || b.name != fs[0].Text {
		return nil, fs[0].Errorf(game, 0, strings.Join(BoardNames, ", "), "no board %q", fs[0].Text)
	}
	seats, err := strconv.Atoi(fs[1].Text)
	if r := BoardPlayers[b.name]; err != nil || seats < r[0] || seats > r[1] || fs[1].Text != strconv.Itoa(seats) {
		return nil, fs[1].Errorf(game, 0, fmt.Sprintf("%s seats on %s", servesText(b.name), b.name), "bad seat count %q", fs[1].Text)
	}
	s := newState(len(b.names))
	s.bi, s.seats = b.idx, int8(seats)
	p := parser{s: s, b: b}

	// Cells.
	if f := fs[2]; f.Text != "-" {
		const want = "a cell, ':', a seat and its pieces, e.g. a1:RLms"
		off := 0
		for _, item := range strings.Split(f.Text, ",") {
			c, k, err := p.cell(f, off, item)
			if err != nil {
				return nil, err
			}
			if k >= len(item) || item[k] != ':' {
				return nil, f.Errorf(game, off+k, want, "no ':' after the cell %s", b.names[c])
			}
			k++
			seat, err := p.seat(f, off+k, item[k:])
			if err != nil {
				return nil, err
			}
			k++
			cs := &s.cs[c]
			if cs.owner != 0 {
				return nil, f.Errorf(game, off, "each cell once", "%s again", b.names[c])
			}
			cs.owner = uint8(seat + 1)
			last := Size(4)
			for k < len(item) {
				z := SizeOf(item[k])
				if z == 0 || z >= last {
					return nil, f.Errorf(game, off+k, "the pieces L, M, S in that order, lower case when nested, ^ after a stack top", "%q is not the next piece on %s", item[k], b.names[c])
				}
				last = z
				st := uint8(free)
				switch {
				case item[k] >= 'a':
					st = nested
				case k+1 < len(item) && item[k+1] == '^':
					st = top
					k++
				}
				cs.set(z, st)
				s.live[seat]++
				k++
			}
			if cs.pcs == 0 {
				return nil, f.Errorf(game, off+k, want, "no pieces on %s", b.names[c])
			}
			off += len(item) + 1
		}
	}

	// Seat to move, passes, eliminations.
	toMove, err := p.seat(fs[3], 0, fs[3].Text)
	if err != nil {
		return nil, err
	}
	if len(fs[3].Text) != 1 {
		return nil, fs[3].Errorf(game, 1, "one seat letter", "extra text %q", fs[3].Text[1:])
	}
	s.toMove = int8(toMove)
	passes, err := strconv.Atoi(fs[4].Text)
	if err != nil || passes < 0 || passes > seats || fs[4].Text != strconv.Itoa(passes) {
		return nil, fs[4].Errorf(game, 0, fmt.Sprintf("the passes played in a row, 0 to %d", seats), "bad count of passes %q", fs[4].Text)
	}
	s.passes = int8(passes)
	if f := fs[5]; f.Text != "-" {
		for k := range len(f.Text) {
			seat, err := p.seat(f, k, f.Text[k:])
			if err != nil {
				return nil, err
			}
			if s.out[seat] != 0 {
				return nil, f.Errorf(game, k, "each eliminated seat once", "%q again", f.Text[k])
			}
			s.nOut++
			s.out[seat] = s.nOut
		}
	}

	// Stacks.
	if f := fs[6]; f.Text != "-" {
		const want = "an initiator, ':', the cell and size of the top, ':', the pieces under it, e.g. R:c3L:YMS"
		off := 0
		for _, item := range strings.Split(f.Text, ",") {
			init, err := p.seat(f, off, item)
			if err != nil {
				return nil, err
			}
			st := &s.stacks[init]
			if st.on {
				return nil, f.Errorf(game, off, "one stack per initiator", "a second stack of %c", SeatLetters[init])
			}
			if len(item) < 2 || item[1] != ':' {
				return nil, f.Errorf(game, off+1, want, "no ':' after the initiator")
			}
			c, k, err := p.cell(f, off+2, item[2:])
			if err != nil {
				return nil, err
			}
			k += 2
			if k >= len(item) || SizeOf(item[k]) == 0 || item[k] >= 'a' {
				return nil, f.Errorf(game, off+k, want, "no size L, M or S of the top on %s", b.names[c])
			}
			st.on, st.cell, st.size = true, c, SizeOf(item[k])
			k++
			if k >= len(item) || item[k] != ':' {
				return nil, f.Errorf(game, off+k, want, "no ':' before the pieces under the stack")
			}
			k++
			if err := p.set(f, off+k, item[k:], &st.under); err != nil {
				return nil, err
			}
			off += len(item) + 1
		}
	}

	// Piles.
	if f := fs[7]; f.Text != "-" {
		const want = "a holder, ':', the pieces in its pile, e.g. G:RSS"
		off := 0
		for _, item := range strings.Split(f.Text, ",") {
			h, err := p.seat(f, off, item)
			if err != nil {
				return nil, err
			}
			if len(item) < 2 || item[1] != ':' {
				return nil, f.Errorf(game, off+1, want, "no ':' after the holder")
			}
			for o := range seats {
				if s.piles[h][o] != 0 {
					return nil, f.Errorf(game, off, "one pile per holder", "a second pile of %c", SeatLetters[h])
				}
			}
			if err := p.set(f, off+2, item[2:], &s.piles[h]); err != nil {
				return nil, err
			}
			off += len(item) + 1
		}
	}

	s.zc, s.zr = s.cellsHash(), s.restHash()
	if err := s.Check(); err != nil {
		return nil, &engine.PositionError{Game: game, Msg: err.Error()}
	}
	if s.passes > s.seats-s.nOut {
		return nil, fs[4].Errorf(game, 0, fmt.Sprintf("at most %d, the seats still in", s.seats-s.nOut), "%d passes in a row", s.passes)
	}
	return s, nil
}

// parser reads the parts of an rpp position text.
type parser struct {
	s *State
	b *Board
}

// seat reads the seat letter at the start of text, at column off of f.
func (p parser) seat(f engine.PositionField, off int, text string) (int, error) {
	want := fmt.Sprintf("a seat letter, one of %s", SeatLetters[:p.s.seats])
	if text == "" {
		return 0, f.Errorf(game, off, want, "no seat")
	}
	i := strings.IndexByte(SeatLetters[:p.s.seats], text[0])
	if i < 0 {
		return 0, f.Errorf(game, off, want, "%q is no seat", text[0])
	}
	return i, nil
}

// cell reads the cell name at the start of text, at column off of f, and
// returns the cell and the length of its name.
func (p parser) cell(f engine.PositionField, off int, text string) (Cell, int, error) {
	k := 1
	for k < len(text) && k < 3 && text[k] >= '0' && text[k] <= '9' {
		k++
	}
	n, err := strconv.Atoi(text[min(1, len(text)):k])
	var c Cell
	ok := err == nil && text[0] >= 'a' && text[0] <= 'z'
	if ok {
		c, ok = p.b.CellAt(text[0], n)
	}
	if !ok || p.b.names[c] != text[:k] {
		return 0, 0, f.Errorf(game, off, "a cell of "+p.b.name+" such as "+p.b.names[0], "no cell %q", text[:k])
	}
	return c, k, nil
}

// set reads a set of pieces (owner letter, then its pieces L M S) into
// set, at column off of f.
func (p parser) set(f engine.PositionField, off int, text string, set *[MaxSeats]counts) error {
	const want = "an owner's seat letter followed by its pieces, L then M then S"
	if text == "" {
		return f.Errorf(game, off, want, "no pieces")
	}
	owner := -1
	last := Size(4)
	for k := range len(text) {
		if z := SizeOf(text[k]); z != 0 && text[k] < 'a' {
			if owner < 0 || z > last {
				return f.Errorf(game, off+k, want, "%q out of order", text[k])
			}
			if set[owner].n(int(z-1)) >= PiecesPerSize {
				return f.Errorf(game, off+k, fmt.Sprintf("at most %d pieces of a size", PiecesPerSize), "too many %c of %c", z.Letter(), SeatLetters[owner])
			}
			set[owner].inc(int(z - 1))
			last = z
			continue
		}
		o, err := p.seat(f, off+k, text[k:])
		if err != nil {
			return err
		}
		if o <= owner || (owner >= 0 && last == 4) {
			return f.Errorf(game, off+k, want+", owners in seat order", "%c out of order", text[k])
		}
		owner, last = o, 4
	}
	if last == 4 {
		return f.Errorf(game, off+len(text), want, "no pieces of %c", SeatLetters[owner])
	}
	return nil
}
