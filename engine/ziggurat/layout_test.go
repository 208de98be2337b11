package ziggurat

import (
	"fmt"
	"strings"
	"testing"

	"pbem/engine"
	"pbem/engine/enginetest"
)

// asciiCells reads the board lines of Render: the cell text at each
// drawn column and row (0 at the top left).
func asciiCells(t *testing.T, text string) map[[2]int]string {
	t.Helper()
	cells := map[[2]int]string{}
	lines := strings.Split(text, "\n")
	for row := range Ranks {
		f := strings.Fields(lines[1+row])
		if len(f) != Files+2 {
			t.Fatalf("board line %q has %d fields, want %d", lines[1+row], len(f), Files+2)
		}
		for col, c := range f[1 : Files+1] {
			cells[[2]int{col, row}] = c
		}
	}
	return cells
}

// code writes a layout cell as Render writes a stack.
func code(c *engine.Cell) string {
	switch len(c.Pieces) {
	case 0:
		return "."
	case 1:
		return c.Pieces[0].Letter
	}
	var b strings.Builder
	b.WriteByte('[')
	for _, p := range c.Pieces {
		b.WriteString(p.Letter)
	}
	return b.String() + "]"
}

func holdingText(l *engine.Layout, name string) string {
	var parts []string
	for _, h := range l.Holdings {
		if h.Name != name {
			continue
		}
		var ps []string
		for _, p := range h.Pieces {
			ps = append(ps, p.Letter)
		}
		if ps == nil {
			ps = []string{"-"}
		}
		parts = append(parts, l.Sides[h.Side]+" "+strings.Join(ps, " "))
	}
	return strings.Join(parts, ", ")
}

// TestLayoutAgreesWithRender: at every position of random games, seen from
// either side, each square Render draws holds in the layout (at the same
// place) the stack Render shows, and the reserve and exited lines list the
// layout's holdings.
func TestLayoutAgreesWithRender(t *testing.T) {
	states, err := enginetest.Positions(Rules{}, engine.Options{}, 17, 20, 120)
	if err != nil {
		t.Fatal(err)
	}
	pieces := 0
	for i, s := range states {
		for _, view := range []int{-1, North} {
			t.Run(fmt.Sprintf("pos%d/view%d", i, view), func(t *testing.T) {
				if err := enginetest.CheckLayout(s, view); err != nil {
					t.Fatal(err)
				}
				text := s.Render(view)
				l := s.(engine.Layouter).Layout(view)
				ascii := asciiCells(t, text)
				if len(l.Cells) != len(ascii) {
					t.Fatalf("layout has %d cells, Render %d", len(l.Cells), len(ascii))
				}
				for _, c := range l.Cells {
					at := [2]int{int(c.X), int(c.Y)}
					if got, want := code(&c), ascii[at]; got != want {
						t.Errorf("cell %s at %v = %q, Render shows %q\n%s", c.Name, at, got, want, text)
					}
					if c.Stacked != (len(c.Pieces) > 1) {
						t.Errorf("cell %s: Stacked = %v with %d pieces", c.Name, c.Stacked, len(c.Pieces))
					}
					pieces += len(c.Pieces)
				}
				for name, prefix := range map[string]string{"reserve": "Reserve: ", "exited": "Exited:  "} {
					if want := prefix + holdingText(l, name) + "\n"; !strings.Contains(text, want) {
						t.Errorf("Render lacks %q\n%s", want, text)
					}
				}
				if !strings.Contains(text, l.Status) {
					t.Errorf("Render lacks the status %q", l.Status)
				}
			})
		}
	}
	if pieces == 0 {
		t.Fatal("no piece was compared")
	}
}

// TestLayoutCellNames: the layout's cell names are the squares' names at
// the squares' places.
func TestLayoutCellNames(t *testing.T) {
	st, err := Rules{}.Start(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := st.(*State)
	l := s.Layout(-1)
	for _, tc := range []struct {
		name string
		x, y float64
	}{{"a1", 0.5, 5.5}, {"f6", 5.5, 0.5}, {"c4", 2.5, 2.5}} {
		c := l.Cell(tc.name)
		if c == nil || c.X != tc.x || c.Y != tc.y {
			t.Errorf("Cell(%s) = %+v, want at (%g, %g)", tc.name, c, tc.x, tc.y)
		}
	}
	if c := s.Layout(North).Cell("a1"); c.X != 5.5 || c.Y != 0.5 {
		t.Errorf("North's a1 at (%g, %g), want (5.5, 0.5)", c.X, c.Y)
	}
}
