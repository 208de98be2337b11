package ziggurat43

import (
	"fmt"
	"strings"
	"testing"

	"pbem/engine"
	"pbem/engine/enginetest"
)

// TestLayoutAgreesWithRender: at every position of random games, seen from
// either side, each grid square Render draws (a piece letter, '.', the
// temple mark or blank) is what the layout has at the same place: a cell
// with that piece, an empty cell, or no cell.
func TestLayoutAgreesWithRender(t *testing.T) {
	states, err := enginetest.Positions(Rules{}, engine.Options{}, 43, 10, 150)
	if err != nil {
		t.Fatal(err)
	}
	pieces := 0
	for i, s := range states {
		for _, view := range []int{-1, Gold} {
			t.Run(fmt.Sprintf("pos%d/view%d", i, view), func(t *testing.T) {
				if err := enginetest.CheckLayout(s, view); err != nil {
					t.Fatal(err)
				}
				text := s.Render(view)
				l := s.(engine.Layouter).Layout(view)
				at := map[[2]int]*engine.Cell{}
				for i := range l.Cells {
					c := &l.Cells[i]
					at[[2]int{int(c.X), int(c.Y)}] = c
				}
				lines := strings.Split(text, "\n")
				for row := range Ranks {
					line := lines[1+row]
					for col := range Files {
						// Render: "  R " then "  X" per square.
						ch := line[4+3*col+2]
						c := at[[2]int{col, row}]
						want := byte(' ')
						if c != nil {
							want = '.'
							if c.Mark == "temple" {
								want = TempleMark
							}
							if len(c.Pieces) == 1 {
								want = c.Pieces[0].Letter[0]
								pieces++
							}
						}
						if ch != want {
							t.Errorf("row %d col %d: Render shows %q, layout %q\n%s", row, col, ch, want, text)
						}
					}
				}
				if !strings.Contains(text, l.Status+"\n") {
					t.Errorf("Render lacks the status %q\n%s", l.Status, text)
				}
			})
		}
	}
	if pieces == 0 {
		t.Fatal("no piece was compared")
	}
}

// TestLayoutTiers: the pyramid steps up one tier per rank to the temple.
func TestLayoutTiers(t *testing.T) {
	s, err := Rules{}.Start(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := s.(engine.Layouter).Layout(-1)
	if len(l.Cells) != NumCells {
		t.Fatalf("%d cells, want %d", len(l.Cells), NumCells)
	}
	tiers := map[int]int{}
	for _, c := range l.Cells {
		tiers[c.Height]++
	}
	for tier, want := range map[int]int{1: 13, 2: 11, 3: 9, 4: 7, 5: 3} {
		if tiers[tier] != want {
			t.Errorf("tier %d has %d cells, want %d", tier, tiers[tier], want)
		}
	}
	if c := l.Cell("g5"); c == nil || c.Mark != "temple" || c.Height != 5 {
		t.Errorf("g5 = %+v, want the temple on tier 5", c)
	}
}
