package notation_test

import (
	"fmt"
	"strconv"
	"strings"

	"pbem/engine"
	"pbem/notation"
)

// toy is a tiny game for testing the record machinery without depending on
// a real game: a pile of 7 stones, sides White and Black take 1, 2 or 3 in
// turn (ply "t2"); whoever takes the last stone wins. "p" passes, which
// makes repetition possible.
type toyRules struct{}

type toyState struct {
	pile, toMove int
	first        int
}

func (toyRules) ID() string      { return "toy" }
func (toyRules) Summary() string { return "take 1-3 stones; the last stone wins" }
func (toyRules) Help() string    { return "Take 1, 2 or 3 stones. Whoever takes the last wins." }
func (toyRules) Sides(o engine.Options) ([]string, error) {
	if o.Players != 0 && o.Players != 2 {
		return nil, fmt.Errorf("toy is for 2 players, not %d", o.Players)
	}
	return []string{"White", "Black"}, nil
}
func (r toyRules) Start(o engine.Options) (engine.State, error) {
	if _, err := r.Sides(o); err != nil {
		return nil, err
	}
	return toyState{pile: 7, toMove: o.First, first: o.First}, nil
}

func (s toyState) Sides() []string { return []string{"White", "Black"} }
func (s toyState) ToMove() int     { return s.toMove }
func (s toyState) Legal() []engine.Move {
	var ms []engine.Move
	for n := 0; n <= 3 && n <= s.pile; n++ {
		ms = append(ms, n)
	}
	return ms
}
func (s toyState) Apply(m engine.Move) (engine.State, error) {
	n, _ := m.(int)
	if n < 0 || n > 3 {
		return nil, engine.Illegal("take 1, 2 or 3 stones")
	}
	if n > s.pile {
		return nil, engine.Illegal("only %d stones left", s.pile)
	}
	s.pile -= n
	s.toMove = 1 - s.toMove
	return s, nil
}
func (s toyState) Outcome() engine.Outcome {
	if s.pile == 0 {
		return engine.Win(2, 1-s.toMove, "last stone taken")
	}
	return engine.Ongoing
}
func (s toyState) Key() string { return fmt.Sprintf("%d/%d", s.pile, s.toMove) }
func (s toyState) Render(int) string {
	return fmt.Sprintf("pile: %d\n%s to move", s.pile, s.Sides()[s.toMove])
}
func (s toyState) Check() error { return nil }

type toyCodec struct{}

func (toyCodec) Rules() engine.Rules { return toyRules{} }
func (toyCodec) Notation() string    { return "t1, t2, t3 take stones; p passes" }
func (toyCodec) Decode(s engine.State, text string) (engine.Move, error) {
	t := strings.ToLower(text)
	if t == "p" || t == "pass" {
		return 0, nil
	}
	if !strings.HasPrefix(t, "t") {
		return nil, notation.Syntaxf(0, "unexpected %q; expected t1, t2, t3 or p", text[:1])
	}
	n, err := strconv.Atoi(t[1:])
	if err != nil {
		return nil, notation.Syntaxf(1, "unexpected %q; expected a number of stones", t[1:])
	}
	return n, nil
}
func (toyCodec) Encode(s engine.State, m engine.Move) string {
	if m.(int) == 0 {
		return "p"
	}
	return fmt.Sprintf("t%d", m.(int))
}

func toyLookup(id string) (notation.Codec, error) {
	switch id {
	case "toy":
		return toyCodec{}, nil
	case "later":
		return nil, fmt.Errorf("game %q is not implemented yet", id)
	}
	return nil, fmt.Errorf("unknown game %q; expected one of toy", id)
}
