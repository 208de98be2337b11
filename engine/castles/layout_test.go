package castles

import (
	"fmt"
	"strings"
	"testing"

	"pbem/engine"
	"pbem/engine/enginetest"
)

// TestLayoutAgreesWithRender: at every position of random games, seen from
// either side, each square Render draws shows the castle or unit the layout
// has at the same place, and the per-side line gives the layout's points,
// supply and scrap heap.
func TestLayoutAgreesWithRender(t *testing.T) {
	states, err := enginetest.Positions(Rules{}, engine.Options{}, 5, 10, 100)
	if err != nil {
		t.Fatal(err)
	}
	units := 0
	for i, s := range states {
		for _, view := range []int{-1, Second} {
			t.Run(fmt.Sprintf("pos%d/view%d", i, view), func(t *testing.T) {
				if err := enginetest.CheckLayout(s, view); err != nil {
					t.Fatal(err)
				}
				text := s.Render(view)
				l := s.(engine.Layouter).Layout(view)
				lines := strings.Split(text, "\n")
				for _, c := range l.Cells {
					col, row := int(c.X), int(c.Y)
					// Render: a rule line above each rank, "R |" then
					// "xxx|" per square.
					line := lines[2+2*row]
					got := line[3+4*col : 3+4*col+3]
					want := "   "
					switch {
					case c.Mark == "castle":
						want = "[" + strings.ToUpper(string("fs"[c.Owner])) + "]"
					case len(c.Pieces) == 1:
						want = " " + c.Pieces[0].Letter + " "
						units++
					}
					if len(c.Pieces) > 1 || (c.Mark == "castle" && len(c.Pieces) > 0) || got != want {
						t.Errorf("cell %s (%d pieces): Render shows %q, layout %q\n%s", c.Name, len(c.Pieces), got, want, text)
					}
				}
				count := map[string]int{}
				for _, h := range l.Holdings {
					count[fmt.Sprint(h.Side, h.Name)] = h.Count
				}
				for p, name := range []string{"First: ", "Second:"} {
					want := fmt.Sprintf("%s points %d, supply %d, scrap heap %d\n", name,
						count[fmt.Sprint(p, "points")], count[fmt.Sprint(p, "supply")], count[fmt.Sprint(p, "scrap heap")])
					if !strings.Contains(text, want) {
						t.Errorf("Render lacks %q\n%s", want, text)
					}
				}
				if !strings.Contains(text, l.Status+"\n") {
					t.Errorf("Render lacks the status %q\n%s", l.Status, text)
				}
			})
		}
	}
	if units == 0 {
		t.Fatal("no unit was compared")
	}
}
