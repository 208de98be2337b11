package rpp

import (
	"reflect"
	"testing"

	"pbem/engine"
)

// scenario is one position, one move, and the position or the exact error
// that follows. Every rule sentence and ruling of RULES.md section 4 has at
// least one.
type scenario struct {
	name   string
	before string
	move   string
	after  string // expected diagram, when err is ""
	err    string
}

func runScenarios(t *testing.T, cases []scenario) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := diagram(t, tc.before)
			m := mv(t, s.board(), tc.move)
			listed := false
			for _, x := range s.Legal() {
				listed = listed || reflect.DeepEqual(x, m)
			}
			got, err := s.Apply(m)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("Apply(%s) = %v, want error %q", tc.move, err, tc.err)
				}
				if listed {
					t.Errorf("Legal() lists %s, which Apply refuses", tc.move)
				}
				return
			}
			if err != nil {
				t.Fatalf("Apply(%s) = %v, want success", tc.move, err)
			}
			if !listed {
				t.Errorf("Legal() does not list %s, which Apply accepts", tc.move)
			}
			if d, w := dump(got.(*State)), normDiagram(tc.after); d != w {
				t.Errorf("Apply(%s) =\n%s\nwant\n%s", tc.move, d, w)
			}
			if d, w := dump(s), normDiagram(tc.before); d != w {
				t.Errorf("Apply(%s) changed the position it was called on:\n%s\nwant\n%s", tc.move, d, w)
			}
		})
	}
}

func TestUnnesting(t *testing.T) {
	runScenarios(t, []scenario{{
		name: "the L leaves a full nest first",
		before: `square5 2 R
			5 . . . . YN
			4 . . . . .
			3 . . . . .
			2 . . . . .
			1 RN . . . .`,
		move: "La1-a2",
		after: `square5 2 Y
			5 . . . . YN
			4 . . . . .
			3 . . . . .
			2 RL . . . .
			1 Rn . . . .`,
	}, {
		name: "the M inside a full nest may not move",
		before: `square5 2 R
			5 . . . . YN
			4 . . . . .
			3 . . . . .
			2 . . . . .
			1 RN . . . .`,
		move: "Ma1-a2",
		err:  "illegal: the M on a1 is nested: a nest un-nests L, then M, then S",
	}, {
		name: "the S inside an M-S nest may not move",
		before: `square5 2 R
			5 . . . . YN
			4 . . . . .
			3 . . . . .
			2 RL . . . .
			1 Rn . . . .`,
		move: "Sa1-b1",
		err:  "illegal: the S on a1 is nested: a nest un-nests L, then M, then S",
	}, {
		name: "the M leaves an M-S nest; the S is free",
		before: `square5 2 R
			5 . . . . YN
			4 . . . . .
			3 . . . . .
			2 RL . . . .
			1 Rn . . . .`,
		move: "Ma1-b1",
		after: `square5 2 Y
			5 . . . . YN
			4 . . . . .
			3 . . . . .
			2 RL . . . .
			1 RS RM . . .`,
	}, {
		name: "a returning L does not re-nest",
		before: `square5 2 R
			5 . . . . YN
			4 . . . . .
			3 . . . . .
			2 RL . . . .
			1 Rn . . . .`,
		move: "La2-a1",
		after: `square5 2 Y
			5 . . . . YN
			4 . . . . .
			3 . . . . .
			2 . . . . .
			1 RLn . . . .`,
	}, {
		name: "the M of an M-S nest moves with a free L beside it",
		before: `square5 2 R
			5 . . . . YN
			4 . . . . .
			3 . . . . .
			2 . . . . .
			1 RLn . . . .`,
		move: "Ma1-b2",
		after: `square5 2 Y
			5 . . . . YN
			4 . . . . .
			3 . . . . .
			2 . RM . . .
			1 RLS . . . .`,
	}})
}

func TestSharing(t *testing.T) {
	runScenarios(t, []scenario{{
		name: "one friendly piece of each size may share a cell",
		before: `square5 2 R
			5 . . . . YN
			4 . . . . .
			3 . . . . .
			2 . . . . .
			1 RLS RM . . .`,
		move: "Mb1-a1",
		after: `square5 2 Y
			5 . . . . YN
			4 . . . . .
			3 . . . . .
			2 . . . . .
			1 RLMS . . . .`,
	}, {
		name: "a second friendly piece of one size may not",
		before: `square5 2 R
			5 . . . . YN
			4 . . . . .
			3 . . . . .
			2 RL . . . .
			1 RL . . . .`,
		move: "La2-a1",
		err:  "illegal: you already have an L on a1: one piece of each size per seat on a cell",
	}, {
		name: "nested pieces count",
		before: `square5 2 R
			5 . . . . YN
			4 . . . . .
			3 . . . . .
			2 . . . . .
			1 Rn RS . . .`,
		move: "Sb1-a1",
		err:  "illegal: you already have a nested S on a1: one piece of each size per seat on a cell",
	}, {
		name: "a stack top counts",
		before: `square5 2 R
			5 . . . . YN
			4 . . . . .
			3 . . Rl RL .
			2 . . . . .
			1 . . . . .
			stack c3 L Y: YM`,
		move: "Ld3-c3",
		err:  "illegal: you already have an L on c3: one piece of each size per seat on a cell",
	}, {
		name: "captured pieces under a stack do not count",
		before: `square7 3 R
			7 . . . . GL . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . Rl RS . . .
			3 . . . . . . .
			2 YL . . . . . .
			1 . . . . . . .
			stack c4 L G: RS GM`,
		move: "Sd4-c4",
		after: `square7 3 Y
			7 . . . . GL . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . RlS . . . .
			3 . . . . . . .
			2 YL . . . . . .
			1 . . . . . . .
			stack c4 L G: RS GM`,
	}})
}

func TestBlocking(t *testing.T) {
	fullNest := `square5 2 R
			5 . . . . YL
			4 . . YN . .
			3 . RL RM RS .
			2 . . . . .
			1 . . . . .`
	runScenarios(t, []scenario{{
		name: "a hostile piece of the same size blocks",
		before: `square5 2 R
			5 . . . . YL
			4 . . YM . .
			3 . . RM . .
			2 . . . . .
			1 . . . . .`,
		move: "Mc3-c4",
		err:  "illegal: blocked: Y's M on c4 (pieces of the same size block)",
	}, {
		name: "a nested hostile piece blocks",
		before: `square5 2 R
			5 . . . . YL
			4 . . Yn . .
			3 . . RS . .
			2 . . . . .
			1 . . . . .`,
		move: "Sc3-c4",
		err:  "illegal: blocked: Y's S on c4 (pieces of the same size block)",
	}, {
		name: "a hostile stack top blocks",
		before: `square7 3 R
			7 . . . . GL . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . Ym . . . .
			3 . . RM . . . .
			2 . . . . . . .
			1 . . . . . . .
			stack c4 M G: GS`,
		move: "Mc3-c4",
		err:  "illegal: blocked: Y's M on c4 (pieces of the same size block)",
	}, {
		name:   "a full nest blocks an L",
		before: fullNest,
		move:   "Lb3-c4",
		err:    "illegal: blocked: Y's L on c4 (pieces of the same size block)",
	}, {
		name:   "a full nest blocks an M",
		before: fullNest,
		move:   "Mc3-c4",
		err:    "illegal: blocked: Y's M on c4 (pieces of the same size block)",
	}, {
		name:   "a full nest blocks an S",
		before: fullNest,
		move:   "Sd3-c4",
		err:    "illegal: blocked: Y's S on c4 (pieces of the same size block)",
	}})
}

func TestCapture(t *testing.T) {
	runScenarios(t, []scenario{{
		name: "rule 2: a piece entering what beats it is captured automatically",
		before: `square5 2 R
			5 . . . . YL
			4 . . YM . .
			3 . . RS . .
			2 . . . . .
			1 RN . . . .`,
		move: "Sc3-c4",
		after: `square5 2 Y
			5 . . . . YL
			4 . . Ym . .
			3 . . . . .
			2 . . . . .
			1 RN . . . .
			stack c4 M R: RS`,
	}, {
		name: "rule 2 before rule 3: an S entering an M and an L is captured",
		before: `square5 2 R
			5 . . . . .
			4 . . YLM . .
			3 . . RS . .
			2 . . . . .
			1 RN . . . .`,
		move: "Sc3-c4",
		after: `square5 2 Y
			5 . . . . .
			4 . . YLm . .
			3 . . . . .
			2 . . . . .
			1 RN . . . .
			stack c4 M R: RS`,
	}, {
		name: "rule 3: L captures M",
		before: `square5 2 R
			5 . . . . YL
			4 . . YM . .
			3 . . RL . .
			2 . . . . .
			1 . . . . .`,
		move: "Lc3xc4",
		after: `square5 2 Y
			5 . . . . YL
			4 . . Rl . .
			3 . . . . .
			2 . . . . .
			1 . . . . .
			stack c4 L R: YM`,
	}, {
		name: "rule 3: M captures S",
		before: `square5 2 R
			5 . . . . YL
			4 . . YS . .
			3 . . RM . .
			2 . . . . .
			1 . . . . .`,
		move: "Mc3xc4",
		after: `square5 2 Y
			5 . . . . YL
			4 . . Rm . .
			3 . . . . .
			2 . . . . .
			1 . . . . .
			stack c4 M R: YS`,
	}, {
		name: "rule 3: S captures L",
		before: `square5 2 R
			5 . . . . YM
			4 . . YL . .
			3 . . RS . .
			2 . . . . .
			1 . . . . .`,
		move: "Sc3xc4",
		after: `square5 2 Y
			5 . . . . YM
			4 . . Rs . .
			3 . . . . .
			2 . . . . .
			1 . . . . .
			stack c4 S R: YL`,
	}, {
		name: "an L takes an M-S nest whole; the nested S does not capture it",
		before: `square5 2 R
			5 . . . . YL
			4 . . Yn . .
			3 . . RL . .
			2 . . . . .
			1 . . . . .`,
		move: "Lc3xc4",
		after: `square5 2 Y
			5 . . . . YL
			4 . . Rl . .
			3 . . . . .
			2 . . . . .
			1 . . . . .
			stack c4 L R: YM YS`,
	}, {
		name: "a free piece beside a stack top captures on its own (two stacks on a cell)",
		before: `square7 3 G
			7 . . . . GL . .
			6 . . . . . . .
			5 . . GS . . . .
			4 . . RlM . . . .
			3 . . . . . . .
			2 YL . . . . . .
			1 . . . . . . .
			stack c4 L Y: YM`,
		move: "Sc5-c4",
		after: `square7 3 R
			7 . . . . GL . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . Rlm . . . .
			3 . . . . . . .
			2 YL . . . . . .
			1 . . . . . . .
			stack c4 L Y: YM
			stack c4 M G: GS`,
	}})
}

func TestStacks(t *testing.T) {
	runScenarios(t, []scenario{{
		name: "a stack top may not move",
		before: `square7 3 R
			7 . . . . GL . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . Rl . . . .
			3 . . . . . . .
			2 YL . . . . . .
			1 . . . . . . .
			stack c4 L Y: YM`,
		move: "Lc4-c5",
		err:  "illegal: the L on c4 tops an unresolved capture stack and may not move",
	}, {
		name: "a third seat recaptures the whole stack and becomes its initiator",
		before: `square7 3 G
			7 . . . . GL . .
			6 . . . . . . .
			5 . . GS . . . .
			4 . . Rl . . . .
			3 . . . . . . .
			2 YL . . . . . .
			1 . RM . . . . .
			stack c4 L R: YM`,
		move: "Sc5xc4",
		after: `square7 3 R
			7 . . . . GL . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . Gs . . . .
			3 . . . . . . .
			2 YL . . . . . .
			1 . RM . . . . .
			stack c4 S G: RL YM`,
	}, {
		name: "a third seat loses a piece to a stack and becomes its initiator",
		before: `square7 3 G
			7 . . . . GL . .
			6 . . . . . . .
			5 . . GM . . . .
			4 . . Rl . . . .
			3 . . . . . . .
			2 YL . . . . . .
			1 . . . . . . .
			stack c4 L R: YM`,
		move: "Mc5-c4",
		after: `square7 3 R
			7 . . . . GL . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . Rl . . . .
			3 . . . . . . .
			2 YL . . . . . .
			1 . . . . . . .
			stack c4 L G: YM GM`,
	}, {
		name: "a stack resolves at the start of its initiator's next turn",
		before: `square7 3 G
			7 . . . . GL . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . Rl . . . .
			3 . . . . . . .
			2 YL . . . . . .
			1 . . . . . . .
			stack c4 L R: YM`,
		move: "pass",
		after: `square7 3 R passes=1
			7 . . . . GL . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . RL . . . .
			3 . . . . . . .
			2 YL . . . . . .
			1 . . . . . . .
			pile R: YM`,
	}, {
		name: "a stack waits while other seats move",
		before: `square7 3 Y
			7 . . . . GL . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . Rl . . . .
			3 . . . . . . .
			2 YL . . . . . .
			1 . . . . . . .
			stack c4 L R: YM`,
		move: "La2-a3",
		after: `square7 3 G
			7 . . . . GL . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . Rl . . . .
			3 YL . . . . . .
			2 . . . . . . .
			1 . . . . . . .
			stack c4 L R: YM`,
	}, {
		name: "the pile is the top owner's, not the initiator's",
		before: `square7 3 G
			7 . . . . GL . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . Ym . . . .
			3 . . . . . . .
			2 . . . . . . .
			1 . RL . . . . .
			stack c4 M R: RS`,
		move: "pass",
		after: `square7 3 R passes=1
			7 . . . . GL . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . YM . . . .
			3 . . . . . . .
			2 . . . . . . .
			1 . RL . . . . .
			pile Y: RS`,
	}, {
		name: "an eliminated initiator's stack resolves when its turn would have been",
		before: `square7 3 G out=R
			7 . . . . GL . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . Ym . . . .
			3 . . . . . . .
			2 . . . . . . .
			1 . . . . . . .
			stack c4 M R: RS`,
		move: "pass",
		after: `square7 3 Y passes=1 out=R
			7 . . . . GL . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . YM . . . .
			3 . . . . . . .
			2 . . . . . . .
			1 . . . . . . .
			pile Y: RS`,
	}})
}

func TestElimination(t *testing.T) {
	runScenarios(t, []scenario{{
		name: "a seat whose last piece is captured on arrival is eliminated at once",
		before: `square7 3 R
			7 . . . . GL . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . YM . . . .
			3 . . RS . . . .
			2 . . . . . . .
			1 . . . . . . .`,
		move: "Sc3-c4",
		after: `square7 3 Y out=R
			7 . . . . GL . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . Ym . . . .
			3 . . . . . . .
			2 . . . . . . .
			1 . . . . . . .
			stack c4 M R: RS`,
	}, {
		name: "a seat whose last piece is taken is eliminated and skipped",
		before: `square7 3 R
			7 . . . . GL . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . YM . . . .
			3 . . RL . . . .
			2 . . . . . . .
			1 . . . . . . .`,
		move: "Lc3xc4",
		after: `square7 3 G out=Y
			7 . . . . GL . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . Rl . . . .
			3 . . . . . . .
			2 . . . . . . .
			1 . . . . . . .
			stack c4 L R: YM`,
	}, {
		name: "turns skip eliminated seats",
		before: `square7 4 G out=B
			7 . . . . . . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . . . . . .
			3 . . . . . . .
			2 YL . . . . . .
			1 . RL . . GL . .`,
		move: "Le1-e2",
		after: `square7 4 R out=B
			7 . . . . . . .
			6 . . . . . . .
			5 . . . . . . .
			4 . . . . . . .
			3 . . . . . . .
			2 YL . . . GL . .
			1 . RL . . . . .`,
	}})
}

func TestMoveErrors(t *testing.T) {
	start := `square5 2 R
		5 YN YN YN YN YN
		4 . . . . .
		3 . . . . .
		2 . . . . .
		1 RN RN RN RN RN`
	runScenarios(t, []scenario{
		{name: "no piece", before: start, move: "Lc3-c4", err: "illegal: no piece on c3"},
		{name: "not your piece", before: start, move: "Le5-e4", err: "illegal: not your piece: e5 holds Y's pieces"},
		{name: "not adjacent", before: start, move: "La1-a3", err: "illegal: a3 is not adjacent to a1: a piece moves one step"},
		{name: "no piece of that size", before: `square5 2 R
			5 . . . . YN
			4 . . . . .
			3 . . . . .
			2 . . . . .
			1 RLS . . . .`, move: "Ma1-a2", err: "illegal: no M of yours on a1"},
		{name: "pass is always legal", before: start, move: "pass", after: `square5 2 Y passes=1
			5 YN YN YN YN YN
			4 . . . . .
			3 . . . . .
			2 . . . . .
			1 RN RN RN RN RN`},
	})
}

func TestHexAdjacency(t *testing.T) {
	b := BoardByName("hex5")
	c3, _ := b.cellNamed("c3")
	var got []string
	for _, n := range b.Neighbours(c3) {
		got = append(got, b.CellName(n))
	}
	want := []string{"b2", "b3", "c2", "c4", "d3", "d4"}
	if !sameSet(got, want) {
		t.Errorf("Neighbours(c3) on hex5 = %v, want %v", got, want)
	}
	runScenarios(t, []scenario{{
		name: "a hex step goes to one of six cells",
		before: `hex5 3 R
			i . . . . .
			h . . . . . .
			g . . . . . . .
			f . . . . . . . .
			e YL . . . . . . . GL
			d . . . . . . . .
			c . . RL . . . .
			b . . . . . .
			a . . . . .`,
		move: "Lc3-d4",
		after: `hex5 3 Y
			i . . . . .
			h . . . . . .
			g . . . . . . .
			f . . . . . . . .
			e YL . . . . . . . GL
			d . . . RL . . . .
			c . . . . . . .
			b . . . . . .
			a . . . . .`,
	}, {
		name: "no hex step to a cell two columns away",
		before: `hex5 3 R
			i . . . . .
			h . . . . . .
			g . . . . . . .
			f . . . . . . . .
			e YL . . . . . . . GL
			d . . . . . . . .
			c . . RL . . . .
			b . . . . . .
			a . . . . .`,
		move: "Lc3-d5",
		err:  "illegal: d5 is not adjacent to c3: a piece moves one step",
	}})
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, v := range m {
		if v != 0 {
			return false
		}
	}
	return true
}

func TestGameOverRefusesMoves(t *testing.T) {
	s := diagram(t, `square5 2 R passes=2
		5 . . . . YL
		4 . . . . .
		3 . . . . .
		2 . . . . .
		1 RL . . . .`)
	if ms := s.Legal(); ms != nil {
		t.Errorf("Legal() = %v after the end, want nil", ms)
	}
	for _, m := range []Move{Pass, {Piece: Large, From: 0, To: 5}} {
		if _, err := s.Apply(m); err == nil || err.Error() != "illegal: the game is over (standoff)" {
			t.Errorf("Apply(%v) = %v, want illegal: the game is over (standoff)", m, err)
		}
	}
	var e engine.Move = m0{}
	if _, err := s.Apply(e); err == nil || err.Error() != "illegal: not an rpp move: rpp.m0" {
		t.Errorf("Apply(foreign move) = %v, want illegal: not an rpp move: rpp.m0", err)
	}
}

func TestMalformedMoves(t *testing.T) {
	st, _ := Rules{}.Start(engine.Options{})
	s := st.(*State)
	for _, tc := range []struct {
		m   Move
		err string
	}{
		{Move{Pass: true, Piece: Large}, "illegal: a pass moves no piece"},
		{Move{Piece: 0, From: 0, To: 5}, "illegal: no piece size 0 (L, M or S)"},
		{Move{Piece: Large, From: 300, To: 5}, "illegal: no such square #300"},
		{Move{Piece: Large, From: 0, To: 25}, "illegal: no such square #25"},
	} {
		_, err := s.Apply(tc.m)
		_, cerr := s.Classify(tc.m)
		if err == nil || err.Error() != tc.err || cerr == nil || cerr.Error() != tc.err {
			t.Errorf("Apply(%+v) = %v, Classify = %v, want %q", tc.m, err, cerr, tc.err)
		}
	}
}

type m0 struct{}
