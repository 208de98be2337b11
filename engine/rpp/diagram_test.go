package rpp

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// Board diagrams for scenario tests. A diagram is text:
//
//	square5 2 R passes=1 out=Y     header: board, seats, seat to move,
//	                               then optional consecutive passes and
//	                               the eliminated seats in order
//	5 .  .  YL .  .                one line per row, top row first: the
//	4 .  .  .  .  .                row label (rank number, or hex row
//	3 .  YM RS .  .                letter), then the cells left to right
//	2 .  .  .  .  .                as CellCode writes them ("." empty)
//	1 RN .  .  .  .
//	stack b3 M R: RS               an unresolved stack: its cell, the size
//	                               of its top (shown lower case in the
//	                               cell), its initiator, the pieces under
//	                               it (seat letter and size; repeat for
//	                               several)
//	pile Y: RM RS                  pieces in a seat's capture pile
//
// Cell codes: seat letter, then L M S free pieces, N a nest L>M>S, n a nest
// M>S, l m s a piece on top of a capture stack. Blank lines and spaces
// between tokens do not matter. Diagrams hold only the pieces a scenario
// needs, so they do not conserve 15 pieces per seat: Check is not run on
// them (the conformance suite runs it on real games).

// diagram builds a State from a diagram.
func diagram(t *testing.T, text string) *State {
	t.Helper()
	s, err := parseDiagram(text)
	if err != nil {
		t.Fatalf("bad diagram: %v\n%s", err, text)
	}
	return s
}

func parseDiagram(text string) (*State, error) {
	var lines [][]string
	for _, l := range strings.Split(text, "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			lines = append(lines, f)
		}
	}
	if len(lines) == 0 || len(lines[0]) < 3 {
		return nil, fmt.Errorf("no header")
	}
	h := lines[0]
	b := BoardByName(h[0])
	if b == nil {
		return nil, fmt.Errorf("board %q", h[0])
	}
	seats, err := strconv.Atoi(h[1])
	if err != nil {
		return nil, err
	}
	s := newState(len(b.names))
	s.bi, s.seats, s.toMove = b.idx, int8(seats), int8(seatOf(h[2][0]))
	for _, f := range h[3:] {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "passes":
			n, _ := strconv.Atoi(v)
			s.passes = int8(n)
		case "out":
			for _, c := range []byte(v) {
				s.nOut++
				s.out[seatOf(c)] = s.nOut
			}
		default:
			return nil, fmt.Errorf("header field %q", f)
		}
	}
	rows := lines[1:]
	for len(rows) > 0 && rows[len(rows)-1][0] == "stack" || len(rows) > 0 && rows[len(rows)-1][0] == "pile" {
		rows = rows[:len(rows)-1]
	}
	if len(rows) != b.rows {
		return nil, fmt.Errorf("%d rows, want %d", len(rows), b.rows)
	}
	for i, r := range rows {
		y := b.rows - 1 - i
		cells := b.row(y)
		if r[0] != b.rowLabel(y) || len(r)-1 != len(cells) {
			return nil, fmt.Errorf("row %v: want label %s and %d cells", r, b.rowLabel(y), len(cells))
		}
		for j, code := range r[1:] {
			if code == "." {
				continue
			}
			cs := cellState{owner: uint8(seatOf(code[0]) + 1)}
			for _, ch := range []byte(code[1:]) {
				switch ch {
				case 'N':
					cs.set(Large, free)
					cs.set(Medium, nested)
					cs.set(Small, nested)
				case 'n':
					cs.set(Medium, free)
					cs.set(Small, nested)
				case 'L', 'M', 'S':
					cs.set(SizeOf(ch), free)
				case 'l', 'm', 's':
					cs.set(SizeOf(ch), top)
				default:
					return nil, fmt.Errorf("cell code %q", code)
				}
			}
			s.cells()[cells[j]] = cs
		}
	}
	for _, f := range lines[1+len(rows):] {
		switch f[0] {
		case "stack": // stack c3 M R: RS YS
			c, ok := s.board().cellNamed(f[1])
			if !ok || len(f) < 4 {
				return nil, fmt.Errorf("stack %v", f)
			}
			i := seatOf(f[3][0])
			st := &s.stacks[i]
			*st = stack{on: true, size: SizeOf(f[2][0]), cell: c}
			for _, p := range f[4:] {
				st.under[seatOf(p[0])].inc(int(SizeOf(p[1]) - 1))
			}
		case "pile": // pile Y: RM RS
			h := seatOf(f[1][0])
			for _, p := range f[2:] {
				s.piles[h][seatOf(p[0])].inc(int(SizeOf(p[1]) - 1))
			}
		}
	}
	for c := range s.cells() {
		cs := s.cells()[c]
		for z := Small; z <= Large; z++ {
			if cs.get(z) != absent {
				s.live[cs.owner-1]++
			}
		}
	}
	s.zc, s.zr = s.cellsHash(), s.restHash()
	return s, nil
}

// dump writes s as a diagram (the inverse of parseDiagram), one space
// between tokens.
func dump(s *State) string {
	var out []string
	h := fmt.Sprintf("%s %d %c", s.board().name, s.seats, SeatLetters[s.toMove])
	if s.passes > 0 {
		h += fmt.Sprintf(" passes=%d", s.passes)
	}
	if s.nOut > 0 {
		h += " out="
		for k := int8(1); k <= s.nOut; k++ {
			for i := range s.seats {
				if s.out[i] == k {
					h += string(SeatLetters[i])
				}
			}
		}
	}
	out = append(out, h)
	for y := s.board().rows - 1; y >= 0; y-- {
		l := []string{s.board().rowLabel(y)}
		for _, c := range s.board().row(y) {
			code := s.CellCode(c)
			if code == "" {
				code = "."
			}
			l = append(l, code)
		}
		out = append(out, strings.Join(l, " "))
	}
	for i := range int(s.seats) {
		st := &s.stacks[i]
		if !st.on {
			continue
		}
		l := fmt.Sprintf("stack %s %c %c:", s.board().names[st.cell], st.size.Letter(), SeatLetters[i])
		l += pieces(&st.under, int(s.seats))
		out = append(out, l)
	}
	for h := range int(s.seats) {
		if l := pieces(&s.piles[h], int(s.seats)); l != "" {
			out = append(out, fmt.Sprintf("pile %c:", SeatLetters[h])+l)
		}
	}
	return strings.Join(out, "\n")
}

func pieces(p *[MaxSeats]counts, seats int) string {
	var l string
	for o := range seats {
		for z := Large; z >= Small; z-- {
			for range p[o].n(int(z - 1)) {
				l += fmt.Sprintf(" %c%c", SeatLetters[o], z.Letter())
			}
		}
	}
	return l
}

// normDiagram collapses the spacing of a diagram for comparison.
func normDiagram(text string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			out = append(out, strings.Join(f, " "))
		}
	}
	return strings.Join(out, "\n")
}

func seatOf(c byte) int { return strings.IndexByte(SeatLetters, c&^0x20) }

// row lists the cells of display row y, left to right.
func (b *Board) row(y int) []Cell {
	var r []Cell
	for c := range b.names {
		if b.y[c] == y {
			r = append(r, Cell(c))
		}
	}
	return r
}

func (b *Board) rowLabel(y int) string {
	if b.hex {
		return string(rune('a' + y))
	}
	return strconv.Itoa(y + 1)
}

func (b *Board) cellNamed(name string) (Cell, bool) {
	n, err := strconv.Atoi(name[1:])
	if err != nil {
		return 0, false
	}
	return b.CellAt(name[0], n)
}

// mv reads a move as the tests write it: "pass", or piece, from, "-" or
// "x", to (the separator is not checked here; the codec does that).
func mv(t testing.TB, b *Board, text string) Move {
	t.Helper()
	if text == "pass" {
		return Pass
	}
	from, to, ok := strings.Cut(text[1:], "-")
	if !ok {
		from, to, ok = strings.Cut(text[1:], "x")
	}
	to = strings.TrimSuffix(to, "*")
	f, okf := b.cellNamed(from)
	g, okt := b.cellNamed(to)
	if !ok || !okf || !okt || SizeOf(text[0]) == 0 {
		t.Fatalf("bad test move %q", text)
	}
	return Move{Piece: SizeOf(text[0]), From: f, To: g}
}
