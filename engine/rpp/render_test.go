package rpp

import (
	"regexp"
	"strings"
	"testing"

	"pbem/engine"
)

func TestRenderFits(t *testing.T) {
	for _, o := range []engine.Options{{}, {Players: 3}, {Players: 4}, {Players: 5}, {Players: 6}, {Players: 8},
		{Players: 7, Board: "octagon"}, {Players: 3, Board: "square7"}} {
		s, err := Rules{}.Start(o)
		if err != nil {
			t.Fatal(err)
		}
		for view := -1; view < len(s.Sides()); view++ {
			pic := s.Render(view)
			for i, l := range strings.Split(pic, "\n") {
				if len(l) > 72 {
					t.Errorf("%+v Render(%d) line %d is %d columns:\n%s", o, view, i+1, len(l), pic)
				}
				for _, c := range []byte(l) {
					if c < 0x20 || c > 0x7e {
						t.Errorf("%+v Render(%d) line %d has byte %#x", o, view, i+1, c)
					}
				}
			}
			if !strings.Contains(pic, "R (red) to move.") || !strings.Contains(pic, "N nest L>M>S") {
				t.Errorf("%+v Render(%d) lacks the turn or the legend:\n%s", o, view, pic)
			}
		}
	}
}

// TestRender pins the picture of a position with nests, several free
// pieces on a cell, two stacks on one cell, a capture pile, an
// eliminated seat and the turn.
func TestRender(t *testing.T) {
	s := diagram(t, `square7 4 B out=G
		7 . . . . . . .
		6 . . . . . . .
		5 . . . . . . .
		4 . . Rlm . . . .
		3 . . . . . . .
		2 YLMS . . . . . .
		1 . RN Rn . . . BL
		stack c4 L Y: YM
		stack c4 M B: BS
		pile Y: RS GL GM GS GS`)
	want := `    a    b    c    d    e    f    g
 7  .    .    .    .    .    .    .    7
 6  .    .    .    .    .    .    .    6
 5  .    .    .    .    .    .    .    5
 4  .    .    Rlm  .    .    .    .    4
 3  .    .    .    .    .    .    .    3
 2  YLMS .    .    .    .    .    .    2
 1  .    RN   Rn   .    .    .    BL   1
    a    b    c    d    e    f    g
Stack on c4 (initiator Y): RL over YM
Stack on c4 (initiator B): RM over BS
R red    home south       live  7  pile 0
Y yellow home west        live  3  pile 5 (1 R, 4 G)
G green  home north       eliminated 1st  pile 0
B blue   home east        live  1  pile 0
Cells: seat letter, then its pieces: L M S free large, medium, small;
N nest L>M>S; n nest M>S; l m s top of a capture stack; . empty.
B (blue) to move.
`
	if got := s.Render(-1); got != want {
		t.Errorf("Render(-1) =\n%s\nwant\n%s", got, want)
	}
	// Seen from G (north), the board is turned half round.
	lines := strings.Split(s.Render(2), "\n")
	if lines[0] != "    g    f    e    d    c    b    a" || !strings.HasPrefix(lines[1], " 1  BL") {
		t.Errorf("Render(2) starts\n%s\n%s\nwant the board turned half round", lines[0], lines[1])
	}
}

func TestRenderHexAndOctagon(t *testing.T) {
	s := diagram(t, `hex5 3 G passes=1
		i . . . . .
		h . . . . . .
		g . . . . . . .
		f . . . . . . . .
		e YL . . . . . . . GL
		d . . . . . . . .
		c . . RL . . . .
		b . . . . . .
		a . . . . .`)
	want := `              1    2    3    4    5
 i            .    .    .    .    .              i
 h         .    .    .    .    .    .            h
 g       .    .    .    .    .    .    .         g
 f    .    .    .    .    .    .    .    .       f
 e  YL   .    .    .    .    .    .    .    GL   e
 d    .    .    .    .    .    .    .    .       d
 c       .    .    RL   .    .    .    .         c
 b         .    .    .    .    .    .            b
 a            .    .    .    .    .              a
              1    2    3    4    5
Cells are numbered from 1 at the left end of each row.`
	if got := s.Render(-1); !strings.HasPrefix(got, want) || !strings.Contains(got, "G (green) to move; 1 consecutive pass.") {
		t.Errorf("Render(-1) =\n%s\nwant it to start\n%s", got, want)
	}
	st, _ := Rules{}.Start(engine.Options{Players: 8})
	o := st.(*State)
	for _, p := range []string{"Lh1-h2", "Lb6-c6"} {
		n, err := o.Apply(mv(t, o.board(), p))
		if err != nil {
			t.Fatal(err)
		}
		o = n.(*State)
	}
	n, _ := o.Apply(Pass)
	o = n.(*State)
	for range 5 {
		n, _ = o.Apply(Pass)
		o = n.(*State)
	}
	n, err := o.Apply(mv(t, o.board(), "Lh2-h1"))
	if err != nil {
		t.Fatal(err)
	}
	pic := n.Render(-1)
	if !strings.Contains(pic, " 1                    .  R+ RN RN RN RN .                    1") ||
		!strings.Contains(pic, "Several pieces: h1 RLn") {
		t.Errorf("octagon with a free L beside an M-S nest:\n%s", pic)
	}
}

func TestRenderResult(t *testing.T) {
	s := diagram(t, `square5 2 R passes=2
		5 . . . . YL
		4 . . . . .
		3 . . . . .
		2 . . . . .
		1 RL . . . .
		pile Y: RS`)
	if pic := s.Render(-1); !strings.HasSuffix(pic, "Game over (standoff): Y>R\n") {
		t.Errorf("Render(-1) =\n%s\nwant it to end with the result", pic)
	}
}

// TestLegendEdgesMatchTheDrawing: the home edge the legend names for a seat
// is where the reader sees that seat's nests, on every board and from
// every seat's view (boards turned half round included).
func TestLegendEdgesMatchTheDrawing(t *testing.T) {
	cell := regexp.MustCompile(`(?:^|\s)(\.|[RYGBKWOP]N)(?:\s|$)`)
	for _, name := range BoardNames {
		r := BoardPlayers[name]
		for n := r[0]; n <= r[1]; n++ {
			st, err := Rules{}.Start(engine.Options{Players: n, Board: name})
			if err != nil {
				t.Fatal(err)
			}
			for view := -1; view < n; view++ {
				pic := st.Render(view)
				type pt struct{ y, x float64 }
				var all []pt
				seat := map[byte][]pt{}
				edge := map[byte]string{}
				for y, line := range strings.Split(pic, "\n") {
					if f := strings.Fields(line); len(f) >= 3 && f[2] == "home" && len(f[0]) == 1 {
						edge[f[0][0]] = f[3]
						continue
					}
					if strings.HasPrefix(line, "Cells:") || strings.HasPrefix(line, "N nest") {
						continue
					}
					for _, m := range cell.FindAllStringSubmatchIndex(line, -1) {
						p := pt{float64(y), float64(m[2])}
						all = append(all, p)
						if line[m[2]] != '.' {
							seat[line[m[2]]] = append(seat[line[m[2]]], p)
						}
					}
				}
				mean := func(ps []pt) pt {
					var c pt
					for _, p := range ps {
						c.y += p.y / float64(len(ps))
						c.x += p.x / float64(len(ps))
					}
					return c
				}
				center := mean(all)
				for i := range n {
					letter := SeatLetters[i]
					c, e := mean(seat[letter]), edge[letter]
					below, above := c.y > center.y+0.5, c.y < center.y-0.5
					left, right := c.x < center.x-1, c.x > center.x+1
					ok := true
					for word, holds := range map[string]bool{"south": below, "bottom": below, "lower": below,
						"north": above, "top": above, "upper": above, "west": left, "left": left, "east": right, "right": right} {
						if strings.Contains(e, word) && !holds {
							ok = false
						}
					}
					if !ok || e == "" {
						t.Errorf("%s, %d players, view %d: legend says %c home %q, but its nests are drawn at %+v (center %+v)\n%s",
							name, n, view, letter, e, c, center, pic)
					}
				}
			}
		}
	}
}
