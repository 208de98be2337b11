package rpp

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// CellCode writes the live pieces of c as the seat letter and its pieces,
// largest first: L M S free pieces, N a nest L>M>S, n a nest M>S, l m s a
// piece on top of a capture stack; "" for an empty cell. E.g. "RN",
// "YLn", "GlS".
func (s *State) CellCode(c Cell) string {
	cs := s.cells()[c]
	if cs.owner == 0 {
		return ""
	}
	b := []byte{SeatLetters[cs.owner-1]}
	for z := Large; z >= Small; z-- {
		switch cs.get(z) {
		case free:
			if z > Small && cs.get(z-1) == nested {
				if z == Large {
					return string(append(b, 'N'))
				}
				return string(append(b, 'n'))
			}
			b = append(b, z.Letter())
		case top:
			b = append(b, z.Letter()|0x20)
		case nested:
			b = append(b, '?') // broken nest: Check reports it
		}
	}
	return string(b)
}

// flipped reports whether view sits on the far side of the board (its home
// edge above the middle), which is then drawn upside down.
func (s *State) flipped(view int) bool {
	if view < 0 || view >= int(s.seats) {
		return false
	}
	sum := 0
	for _, c := range s.board().homes[view] {
		sum += 2 * s.board().y[c]
	}
	return sum > len(s.board().homes[view])*(s.board().rows-1)
}

// Render draws the board in ASCII within 72 columns, coordinates on two
// sides, then the stacks, the seats with their capture piles, a legend and
// whose turn it is (or the result). view is the seat seen from: a seat
// whose home edge is in the upper half sees the board turned half round.
func (s *State) Render(view int) string {
	b := s.board()
	flip := s.flipped(view)
	cw, codeW := 5, 4
	if b.compact {
		cw, codeW = 3, 2
	}
	const left = 4
	pos := func(x int) int {
		if flip {
			x = b.width - 1 - x
		}
		return left + x*cw/2
	}
	rightCol := left + (b.width-1)*cw/2 + codeW + 1
	rows := make([][]byte, b.rows)
	for i := range rows {
		rows[i] = []byte(strings.Repeat(" ", rightCol+3))
	}
	var several []string
	for c := range b.names {
		row := rows[b.y[c]]
		code := s.CellCode(Cell(c))
		switch {
		case code == "":
			code = "."
		case b.compact && len(code) > 2:
			several = append(several, b.names[c]+" "+code)
			code = code[:1] + "+"
		}
		copy(row[pos(b.x[c]):], code)
	}
	label := func(y int) string {
		if b.hex {
			return string(rune('a' + y))
		}
		return strconv.Itoa(y + 1)
	}
	// Coordinate line above or below the board: file letters, or on hex
	// boards the numbers of the cells of the row next to it.
	coords := func(y int) string {
		line := []byte(strings.Repeat(" ", rightCol))
		for c := range b.names {
			switch {
			case b.hex && b.y[c] == y:
				copy(line[pos(b.x[c]):], b.names[c][1:])
			case !b.hex: // every file, also where this row is cut away
				copy(line[pos(b.x[c]):], b.names[c][:1])
			}
		}
		return strings.TrimRight(string(line), " ")
	}
	order := make([]int, b.rows)
	for i := range order {
		order[i] = b.rows - 1 - i // top row first
		if flip {
			order[i] = i
		}
	}
	var out strings.Builder
	out.WriteString(coords(order[0]) + "\n")
	for _, y := range order {
		l := label(y)
		row := rows[y]
		copy(row, fmt.Sprintf("%2s", l))
		copy(row[rightCol:], l)
		out.WriteString(strings.TrimRight(string(row), " ") + "\n")
	}
	out.WriteString(coords(order[len(order)-1]) + "\n")
	switch {
	case b.hex && flip:
		out.WriteString("Cells are numbered from 1 at the right end of each row (turned).\n")
	case b.hex:
		out.WriteString("Cells are numbered from 1 at the left end of each row.\n")
	}
	if len(several) > 0 {
		writeWrapped(&out, "Several pieces: ", several)
	}
	s.renderStacks(&out)
	s.renderSeats(&out, flip)
	out.WriteString(legend)
	if b.compact {
		out.WriteString(legendCompact)
	}
	out.WriteString(s.status() + "\n")
	return out.String()
}

const legend = `Cells: seat letter, then its pieces: L M S free large, medium, small;
N nest L>M>S; n nest M>S; l m s top of a capture stack; . empty.
`

const legendCompact = `Compact cells: seat letter and one piece code; + means several pieces,
listed above; blank = no cell (the octagon's cut corners).
`

// renderStacks lists the unresolved capture stacks.
func (s *State) renderStacks(out *strings.Builder) {
	for i := range int(s.seats) {
		st := &s.stacks[i]
		if !st.on {
			continue
		}
		owner := s.cells()[st.cell].owner - 1
		var under []string
		for o := range int(s.seats) {
			for z := Large; z >= Small; z-- {
				for range st.under[o].n(int(z - 1)) {
					under = append(under, string([]byte{SeatLetters[o], z.Letter()}))
				}
			}
		}
		writeWrapped(out, fmt.Sprintf("Stack on %s (initiator %c): %c%c over ",
			s.board().names[st.cell], SeatLetters[i], SeatLetters[owner], st.size.Letter()), under)
	}
}

// renderSeats writes one line per seat: colour, home edge, live pieces,
// capture pile (total, and by owner) or elimination. On a board turned
// half round the home edges are named as the reader sees them.
func (s *State) renderSeats(out *strings.Builder, flip bool) {
	for i := range int(s.seats) {
		edge := s.board().edges[i]
		if flip {
			edge = turnedEdge[edge]
		}
		fmt.Fprintf(out, "%c %-6s home %-11s", SeatLetters[i], seatColours[i], edge)
		if s.out[i] != 0 && s.live[i] > 0 {
			fmt.Fprintf(out, " left (out %s), live %d", ordinal(int(s.out[i])), s.live[i])
		} else if s.out[i] != 0 {
			fmt.Fprintf(out, " eliminated %s", ordinal(int(s.out[i])))
		} else {
			fmt.Fprintf(out, " live %2d", s.live[i])
		}
		total := 0
		var by []string
		for o := range int(s.seats) {
			if n := s.pileOf(i, o); n > 0 {
				total += n
				by = append(by, fmt.Sprintf("%d %c", n, SeatLetters[o]))
			}
		}
		fmt.Fprintf(out, "  pile %d", total)
		if total > 0 {
			fmt.Fprintf(out, " (%s)", strings.Join(by, ", "))
		}
		out.WriteString("\n")
	}
}

// status says whose turn it is, or the result.
func (s *State) status() string {
	if o := s.Outcome(); o.Over {
		return fmt.Sprintf("Game over (%s): %s", o.Reason, Ranking(o.Rank))
	}
	t := int(s.toMove)
	st := fmt.Sprintf("%c (%s) to move", SeatLetters[t], seatColours[t])
	if s.passes > 0 {
		st += fmt.Sprintf("; %d consecutive pass", s.passes)
		if s.passes > 1 {
			st += "es"
		}
	}
	return st + "."
}

// Ranking writes ranks (one per seat, 1 best) as a ranking such as
// "G>R=B": seats best first, = between seats that share a place.
func Ranking(rank []int) string {
	idx := make([]int, len(rank))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return rank[idx[a]] < rank[idx[b]] })
	var b strings.Builder
	for k, i := range idx {
		if k > 0 {
			if rank[i] == rank[idx[k-1]] {
				b.WriteByte('=')
			} else {
				b.WriteByte('>')
			}
		}
		b.WriteByte(SeatLetters[i])
	}
	return b.String()
}

func ordinal(n int) string {
	switch n {
	case 1:
		return "1st"
	case 2:
		return "2nd"
	case 3:
		return "3rd"
	}
	return strconv.Itoa(n) + "th"
}

// writeWrapped writes prefix and the items separated by spaces, wrapped
// within 72 columns.
func writeWrapped(out *strings.Builder, prefix string, items []string) {
	line := prefix
	for i, it := range items {
		sep := " "
		if i == 0 {
			sep = ""
		}
		if len(line)+len(sep)+len(it) > 72 {
			out.WriteString(strings.TrimRight(line, " ") + "\n")
			line, sep = "  ", ""
		}
		line += sep + it
	}
	out.WriteString(line + "\n")
}

// turnedEdge names each edge as it appears on a board drawn turned half
// round: the edge drawn at the bottom of the turned board is the north one.
var turnedEdge = map[string]string{
	"south": "north", "north": "south", "west": "east", "east": "west",
	"south-west": "north-east", "north-east": "south-west",
	"north-west": "south-east", "south-east": "north-west",
	"bottom": "top", "top": "bottom", "lower-left": "upper-right", "upper-right": "lower-left",
	"upper-left": "lower-right", "lower-right": "upper-left",
}
