package ziggurat

import (
	"fmt"
	"strings"
)

// cellWidth is the width of one board column; the first piece letter of a
// unit sits under the file letter.
const cellWidth = 7

// Render implements engine.State. view North turns the board so that North
// sits at the bottom; any other view shows South at the bottom.
func (s *State) Render(view int) string {
	var b strings.Builder
	files := [Files]int{0, 1, 2, 3, 4, 5}
	ranks := [Ranks]int{6, 5, 4, 3, 2, 1}
	if view == North {
		files = [Files]int{5, 4, 3, 2, 1, 0}
		ranks = [Ranks]int{1, 2, 3, 4, 5, 6}
	}
	fileLine := func() {
		line := "   "
		for _, f := range files {
			line += "  " + string(rune('a'+f)) + strings.Repeat(" ", cellWidth-3)
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	fileLine()
	for _, r := range ranks {
		fmt.Fprintf(&b, "%2d ", r)
		for _, f := range files {
			st := s.board[SquareAt(f, r).idx()]
			cell := st.String()
			if st.Len() > 1 {
				cell = " " + cell
			} else {
				cell = "  " + cell
			}
			b.WriteString(cell)
			if pad := cellWidth - len(cell); pad > 0 {
				b.WriteString(strings.Repeat(" ", pad))
			}
		}
		fmt.Fprintf(&b, "%d\n", r)
	}
	fileLine()
	b.WriteString(legend)
	b.WriteString("Reserve: " + s.pieceList(func(side int, u Unit) int { return int(s.reserve[side][u]) }) + "\n")
	b.WriteString("Exited:  " + s.pieceList(func(side int, u Unit) int {
		if s.exited[side][u] {
			return 1
		}
		return 0
	}) + "\n")
	b.WriteString(s.status())
	b.WriteString("\n")
	return b.String()
}

const legend = `Q D W   South's Queen (3), Drone (2), Worker (1); South heads for rank 6
q d w   North's Queen, Drone, Worker; North heads for rank 1
.       an empty square
[QDw]   a stack, bottom to top, owned by the owner of its top piece:
        a Tower if the top is smaller than the piece under it (moves
        like a knight), else a Keep (moves like a rook)
`

// pieceList writes both sides' pieces counted by n, e.g.
// "South Q D W, North q -".
func (s *State) pieceList(n func(side int, u Unit) int) string {
	var parts []string
	for side := range 2 {
		var ps []string
		for _, u := range [3]Unit{Queen, Drone, Worker} {
			for range n(side, u) {
				ps = append(ps, string(MakePiece(side, u).Letter()))
			}
		}
		if ps == nil {
			ps = []string{"-"}
		}
		parts = append(parts, sideNames[side]+" "+strings.Join(ps, " "))
	}
	return strings.Join(parts, ", ")
}

// status says whose turn it is, or the result.
func (s *State) status() string {
	if o := s.Outcome(); o.Over {
		if w := o.Winner(); w >= 0 {
			return fmt.Sprintf("Game over: %s wins (%s).", sideNames[w], o.Reason)
		}
		return fmt.Sprintf("Game over: draw (%s).", o.Reason)
	}
	t := sideNames[s.toMove] + " to move."
	if s.passes > 0 {
		t = fmt.Sprintf("%s to move (%s passed; %d passes in a row draw).", sideNames[s.toMove], sideNames[1-s.toMove], PassesToDraw)
	}
	return t
}
