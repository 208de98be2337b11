package elevation

import (
	"fmt"
	"strings"
	"testing"

	"pbem/engine"
	"pbem/engine/enginetest"
)

// TestLayoutAgreesWithRender: at every position of random games, seen from
// either side, each square Render draws shows the height and the piece the
// layout has at the same place.
func TestLayoutAgreesWithRender(t *testing.T) {
	states, err := enginetest.Positions(Rules{}, engine.Options{}, 3, 10, 80)
	if err != nil {
		t.Fatal(err)
	}
	pieces := 0
	for i, s := range states {
		for _, view := range []int{-1, Black} {
			t.Run(fmt.Sprintf("pos%d/view%d", i, view), func(t *testing.T) {
				if err := enginetest.CheckLayout(s, view); err != nil {
					t.Fatal(err)
				}
				text := s.Render(view)
				l := s.(engine.Layouter).Layout(view)
				lines := strings.Split(text, "\n")
				ascii := map[[2]int]string{}
				for row := range Size {
					f := strings.Fields(lines[1+row])
					if len(f) != Size+2 {
						t.Fatalf("board line %q has %d fields, want %d", lines[1+row], len(f), Size+2)
					}
					for col, c := range f[1 : Size+1] {
						ascii[[2]int{col, row}] = c
					}
				}
				if len(l.Cells) != len(ascii) {
					t.Fatalf("layout has %d cells, Render %d", len(l.Cells), len(ascii))
				}
				for _, c := range l.Cells {
					want := ascii[[2]int{int(c.X), int(c.Y)}]
					got := fmt.Sprintf("%d.", c.Height)
					if len(c.Pieces) > 0 {
						got = fmt.Sprintf("%d%s", c.Height, c.Pieces[0].Letter)
						pieces++
					}
					if len(c.Pieces) > 1 || got != want {
						t.Errorf("cell %s = %q (%d pieces), Render shows %q\n%s", c.Name, got, len(c.Pieces), want, text)
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
