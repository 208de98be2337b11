package rpp

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"pbem/engine"
	"pbem/engine/enginetest"
)

// layoutCode writes a layout cell as CellCode writes it: the seat letter,
// then its pieces largest first, a nest as N or n, a stack top lower case.
func layoutCode(l *engine.Layout, c *engine.Cell) string {
	if len(c.Pieces) == 0 {
		return ""
	}
	b := []byte{SeatLetters[c.Pieces[0].Side]}
	for i, p := range c.Pieces {
		if p.State == "nested" {
			continue
		}
		if i+1 < len(c.Pieces) && c.Pieces[i+1].State == "nested" {
			if p.Size == int(Large) {
				return string(append(b, 'N'))
			}
			return string(append(b, 'n'))
		}
		b = append(b, p.Letter...)
	}
	return string(b)
}

// TestLayoutAgreesWithRender: on every board, at every position of random
// games, seen from every seat, each cell Render draws holds in the layout
// (at the same row and column) the pieces Render shows; cells Render lists
// under "Several pieces" agree too; every capture stack Render lists is on
// its cell in the layout with the same captured pieces; and the seat lines
// give the layout's capture piles.
func TestLayoutAgreesWithRender(t *testing.T) {
	for _, o := range []engine.Options{
		{Players: 2}, {Players: 3}, {Players: 4}, {Players: 6}, {Players: 8},
		{Players: 3, Board: "square7"}, {Players: 7},
	} {
		t.Run(fmt.Sprintf("%d-%s", o.Players, o.Board), func(t *testing.T) {
			states, err := enginetest.Positions(Rules{}, o, 7, 4, 120)
			if err != nil {
				t.Fatal(err)
			}
			pieces, stacks := 0, 0
			for i, s := range states {
				for view := -1; view < o.Players; view++ {
					if err := enginetest.CheckLayout(s, view); err != nil {
						t.Fatalf("pos %d view %d: %v", i, view, err)
					}
					p, st := compareRender(t, s.(*State), view)
					pieces, stacks = pieces+p, stacks+st
					if t.Failed() {
						t.Fatalf("pos %d view %d", i, view)
					}
				}
			}
			if pieces == 0 {
				t.Fatal("no piece was compared")
			}
			t.Logf("%d positions, %d pieces, %d capture stacks compared", len(states), pieces, stacks)
		})
	}
}

func compareRender(t *testing.T, s *State, view int) (pieces, stacks int) {
	t.Helper()
	b := s.board()
	text := s.Render(view)
	l := s.Layout(view)
	lines := strings.Split(text, "\n")
	cw := 5
	if b.compact {
		cw = 3
	}
	rowStep := 1.0
	if b.hex {
		rowStep = hexRow
	}
	for i := range l.Cells {
		c := &l.Cells[i]
		row := int(math.Round((c.Y - 0.5) / rowStep))
		col := 4 + int(math.Round((c.X-0.5)*2))*cw/2
		line := lines[1+row]
		end := col
		for end < len(line) && line[end] != ' ' {
			end++
		}
		shown := line[col:end]
		want := layoutCode(l, c)
		switch {
		case want == "":
			want = "."
		case b.compact && len(want) > 2:
			if listed := " " + c.Name + " " + want; !strings.Contains(text, listed+" ") && !strings.Contains(text, listed+"\n") {
				t.Errorf("Render does not list %q under several pieces\n%s", listed, text)
			}
			want = want[:1] + "+"
		}
		if shown != want {
			t.Errorf("cell %s at line %d col %d: Render shows %q, layout %q\n%s", c.Name, 1+row, col, shown, want, text)
		}
		if want := s.CellCode(Cell(i)); layoutCode(l, c) != want {
			t.Errorf("cell %s: layout %q, CellCode %q", c.Name, layoutCode(l, c), want)
		}
		pieces += len(c.Pieces)
		if len(c.Under) > 0 {
			stacks++
			var top *engine.Piece
			for j := range c.Pieces {
				if c.Pieces[j].State == "stack-top" {
					top = &c.Pieces[j]
				}
			}
			if top == nil {
				t.Errorf("cell %s has captured pieces under no stack top", c.Name)
				continue
			}
			var under []string
			for _, p := range c.Under {
				under = append(under, string(SeatLetters[p.Side])+p.Letter)
			}
			head := fmt.Sprintf("Stack on %s (initiator ", c.Name)
			tail := fmt.Sprintf("): %c%s over %s", SeatLetters[top.Side], strings.ToUpper(top.Letter), strings.Join(under, " "))
			at := strings.Index(text, head)
			if at < 0 || !strings.HasPrefix(strings.ReplaceAll(text[at+len(head)+1:], "\n  ", " "), tail) {
				t.Errorf("Render does not show the stack %s...%s\n%s", head, tail, text)
			}
		}
	}
	for _, h := range l.Holdings {
		if h.Name != "capture pile" {
			continue
		}
		want := fmt.Sprintf("  pile %d", h.Count)
		seatLine := ""
		for _, line := range lines {
			if strings.HasPrefix(line, string(SeatLetters[h.Side])+" "+seatColours[h.Side]) {
				seatLine = line
			}
		}
		if !strings.Contains(seatLine, want) {
			t.Errorf("seat %c line %q lacks %q", SeatLetters[h.Side], seatLine, want)
		}
	}
	if !strings.Contains(text, l.Status+"\n") {
		t.Errorf("Render lacks the status %q\n%s", l.Status, text)
	}
	return pieces, stacks
}
