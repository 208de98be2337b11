package rpp

import (
	"reflect"
	"testing"

	"pbem/engine"
)

func TestOutcome(t *testing.T) {
	cases := []struct {
		name    string
		before  string
		move    string // "" to take the outcome of before itself
		settle  string // when set, Settle(settle) instead of Outcome
		want    engine.Outcome
		ranking string
	}{{
		name: "the game goes on",
		before: `square7 3 R passes=2
			7 . . . . GL . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . . . . . .
			3 . . . . . . .
			2 YL . . . . . .
			1 . RL . . . . .`,
		want: engine.Ongoing,
	}, {
		name: "last man standing: the others rank in reverse order of elimination",
		before: `square7 3 R out=Y
			7 . . . . . . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . GM . . . .
			3 . . RL . . . .
			2 . . . . . . .
			1 . . . . . . .
			pile G: RS RS RS`,
		move:    "Lc3xc4",
		want:    engine.Outcome{Over: true, Rank: []int{1, 3, 2}, Reason: "last man standing"},
		ranking: "R>G>Y",
	}, {
		name: "standoff: a full round of passes by the surviving seats",
		before: `square7 3 G passes=2
			7 . . . . GL . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . . . . . .
			3 . . . . . . .
			2 YL . . . . . .
			1 . RL . . . . .
			pile Y: RS`,
		move:    "pass",
		want:    engine.Outcome{Over: true, Rank: []int{2, 1, 2}, Reason: "standoff"},
		ranking: "Y>R=G",
	}, {
		name: "standoff: eliminated seats do not pass",
		before: `square7 4 G passes=1 out=YB
			7 . . . . GL . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . . . . . .
			3 . . . . . . .
			2 . . . . . . .
			1 . RL . . . . .
			pile G: YL
			pile R: BS YS`,
		move:    "pass",
		want:    engine.Outcome{Over: true, Rank: []int{1, 4, 2, 3}, Reason: "standoff"},
		ranking: "R>G>B>Y",
	}, {
		name: "scoring: the capture piles, any colour, own pieces included",
		before: `square7 3 R
			7 . . . . GL . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . . . . . .
			3 . . . . . . .
			2 YL . . . . . .
			1 . RL . . . . .
			pile R: RS RS
			pile G: YM`,
		settle:  "agreement",
		want:    engine.Outcome{Over: true, Rank: []int{1, 3, 2}, Reason: "agreement"},
		ranking: "R>G>Y",
	}, {
		name: "tie-break: recount the tied seats' pieces only",
		before: `square7 3 R
			7 . . . . GL . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . . . . . .
			3 . . . . . . .
			2 YL . . . . . .
			1 . RL . . . . .
			pile R: YL YM GS
			pile Y: GM GL
			pile G: RL RS YM`,
		settle:  "agreement",
		want:    engine.Outcome{Over: true, Rank: []int{2, 3, 1}, Reason: "agreement"},
		ranking: "G>R>Y",
	}, {
		name: "tie-break: seats still tied share the place",
		before: `square7 3 R
			7 . . . . GL . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . . . . . .
			3 . . . . . . .
			2 YL . . . . . .
			1 . RL . . . . .
			pile R: YL GS
			pile G: YM RS`,
		settle:  "agreement",
		want:    engine.Outcome{Over: true, Rank: []int{1, 3, 1}, Reason: "agreement"},
		ranking: "R=G>Y",
	}, {
		name: "stalemate by agreement resolves the stacks first",
		before: `square7 3 R
			7 . . . . GL . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . Gs . . . .
			3 . . . . . . .
			2 YL . . . . . .
			1 . RM . . . . .
			stack c4 S G: RL YM
			pile R: YS`,
		settle:  "stalemate by agreement",
		want:    engine.Outcome{Over: true, Rank: []int{2, 3, 1}, Reason: "stalemate by agreement"},
		ranking: "G>R>Y",
	}, {
		name: "repetition is settled the same way",
		before: `square5 2 R
			5 . . . . YL
			4 . . . . .
			3 . . . . .
			2 . . . . .
			1 . RL . . .
			pile Y: RS`,
		settle:  "threefold repetition",
		want:    engine.Outcome{Over: true, Rank: []int{2, 1}, Reason: "threefold repetition"},
		ranking: "Y>R",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := diagram(t, tc.before)
			if tc.move != "" {
				n, err := s.Apply(mv(t, s.board(), tc.move))
				if err != nil {
					t.Fatalf("Apply(%s) = %v", tc.move, err)
				}
				s = n.(*State)
			}
			var got engine.Outcome
			if tc.settle != "" {
				got = s.Settle(tc.settle)
			} else {
				got = s.Outcome()
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Outcome() = %+v, want %+v", got, tc.want)
			}
			if got.Over {
				if r := Ranking(got.Rank); r != tc.ranking {
					t.Errorf("Ranking(%v) = %s, want %s", got.Rank, r, tc.ranking)
				}
				if _, err := s.Apply(Pass); tc.settle == "" && err == nil {
					t.Errorf("Apply(pass) after the end succeeded")
				}
			}
		})
	}
}

func TestStandoffNeedsAFullRound(t *testing.T) {
	s := diagram(t, `square7 3 R
		7 . . . . GL . .
		6 . . . . . . .
		5 . . . . . . .
		4 . . . . . . .
		3 . . . . . . .
		2 YL . . . . . .
		1 . RL . . . . .`)
	var st engine.State = s
	for i := 1; i <= 3; i++ {
		if o := st.Outcome(); o.Over {
			t.Fatalf("after %d passes: Outcome() = %+v, want the game to go on", i-1, o)
		}
		var err error
		if st, err = st.Apply(Pass); err != nil {
			t.Fatal(err)
		}
	}
	if o := st.Outcome(); !o.Over || o.Reason != "standoff" {
		t.Errorf("after 3 passes: Outcome() = %+v, want a standoff", o)
	}
	// A move between passes starts the count again.
	st = s
	for _, m := range []Move{Pass, Pass, {Piece: Large, From: mustCell(t, s.board(), "e7"), To: mustCell(t, s.board(), "e6")}, Pass, Pass} {
		var err error
		if st, err = st.Apply(m); err != nil {
			t.Fatal(err)
		}
	}
	if o := st.Outcome(); o.Over {
		t.Errorf("pass, pass, move, pass, pass: Outcome() = %+v, want the game to go on", o)
	}
}

func mustCell(t *testing.T, b *Board, name string) Cell {
	t.Helper()
	c, ok := b.cellNamed(name)
	if !ok {
		t.Fatalf("no cell %s", name)
	}
	return c
}

// TestRepetition: engine.Line applies threefold repetition and settles it
// with the capture piles (here none: every seat shares the first place).
// A returning L does not re-nest, so the start itself never recurs.
func TestRepetition(t *testing.T) {
	st, _ := Rules{}.Start(engine.Options{})
	s := st.(*State)
	line := engine.NewLine(s)
	for i, p := range []string{"La1-a2", "La5-a4",
		"La2-a3", "La4-b4", "La3-a2", "Lb4-a4", "La2-a3", "La4-b4", "La3-a2", "Lb4-a4"} {
		if o := line.Outcome(); o.Over {
			t.Fatalf("over after %d plies: %+v", i, o)
		}
		var err error
		if line, err = line.Play(mv(t, s.board(), p)); err != nil {
			t.Fatal(err)
		}
	}
	want := engine.Outcome{Over: true, Rank: []int{1, 1}, Reason: "threefold repetition"}
	if o := line.Outcome(); !reflect.DeepEqual(o, want) {
		t.Errorf("Outcome() = %+v, want %+v", o, want)
	}
}
