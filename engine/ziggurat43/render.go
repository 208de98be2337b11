package ziggurat43

import "strings"

// TempleMark draws the empty temple g5 (the seed marks it with an X).
const TempleMark = 'X'

// Render draws the pyramid in plain ASCII with file letters above and below
// and rank numbers on both sides, a legend and whose turn it is. Red's
// pieces are upper-case letters, Gold's lower-case. The default view (-1 or
// Red) has Red on the left; Gold's view (1) mirrors the files so that Gold
// sits on the left. Squares that are not cells stay blank.
func (s *State) Render(view int) string {
	mirror := view == Gold
	var b strings.Builder
	b.Grow(1024)
	files := func() {
		b.WriteString("    ")
		for i := 0; i < Files; i++ {
			f := i
			if mirror {
				f = Files - 1 - i
			}
			b.WriteString("  ")
			b.WriteByte(byte('a' + f))
		}
		b.WriteByte('\n')
	}
	files()
	for r := Ranks - 1; r >= 0; r-- {
		rank := byte('1' + r)
		b.WriteString("  ")
		b.WriteByte(rank)
		b.WriteByte(' ')
		for i := 0; i < Files; i++ {
			f := i
			if mirror {
				f = Files - 1 - i
			}
			q := MakeSquare(f, r)
			b.WriteString("  ")
			b.WriteByte(s.glyph(q))
		}
		b.WriteString("   ")
		b.WriteByte(rank)
		b.WriteByte('\n')
	}
	files()
	b.WriteString("\nRed (upper case): K Priest-King, H Horse, A Archer, C Chariot,\n")
	b.WriteString("  S Spearman. Gold: the same letters in lower case (k h a c s).\n")
	b.WriteString(". empty square   X the empty temple g5   blank: no square\n")
	if o := s.Outcome(); o.Over {
		b.WriteString("Game over: " + sideNames[o.Winner()] + " wins (" + o.Reason + ").\n")
	} else {
		b.WriteString(sideNames[s.toMove] + " to move.\n")
	}
	return b.String()
}

// glyph is the character that draws square q.
func (s *State) glyph(q Square) byte {
	if !q.IsCell() {
		return ' '
	}
	p := s.board[q]
	switch {
	case p == Empty && q == Temple:
		return TempleMark
	case p == Empty:
		return '.'
	case p.Side() == Gold:
		return p.Kind().Letter() + 'a' - 'A'
	}
	return p.Kind().Letter()
}
