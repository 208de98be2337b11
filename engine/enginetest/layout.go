package enginetest

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"pbem/engine"
)

// Positions plays n random games of at most plies plies each from the
// start of rules with options o and returns every position seen (the start
// first), so that a test can compare two drawings of many real positions.
func Positions(rules engine.Rules, o engine.Options, seed uint64, n, plies int) ([]engine.State, error) {
	start, err := rules.Start(o)
	if err != nil {
		return nil, err
	}
	out := []engine.State{start}
	for i := range n {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		s := start
		for range plies {
			if s.Outcome().Over {
				break
			}
			var m engine.Move
			if sm, ok := s.(engine.Sampler); ok {
				m = sm.RandomMove(r)
			} else {
				legal := s.Legal()
				if len(legal) == 0 {
					break
				}
				m = legal[r.IntN(len(legal))]
			}
			next, err := s.Apply(m)
			if err != nil {
				return nil, fmt.Errorf("playout %d: %v", i, err)
			}
			s = next
			out = append(out, s)
		}
	}
	return out, nil
}

// CheckLayout verifies what every layout promises: the state is a
// Layouter, its sides and side to move are the state's, cell names are
// unique and every cell lies within the bounds, every piece belongs to a
// side and names its letter, and labels lie at most a cell outside.
func CheckLayout(s engine.State, view int) error {
	lo, ok := s.(engine.Layouter)
	if !ok {
		return fmt.Errorf("%T is not an engine.Layouter", s)
	}
	l := lo.Layout(view)
	if l == nil {
		return fmt.Errorf("Layout(%d) = nil", view)
	}
	if !slices.Equal(l.Sides, s.Sides()) {
		return fmt.Errorf("Layout.Sides = %v, want %v", l.Sides, s.Sides())
	}
	if len(l.Colours) != len(l.Sides) {
		return fmt.Errorf("Layout.Colours has %d entries, want one per side (%d)", len(l.Colours), len(l.Sides))
	}
	want := s.ToMove()
	if s.Outcome().Over {
		want = -1
	}
	if l.ToMove != want {
		return fmt.Errorf("Layout.ToMove = %d, want %d", l.ToMove, want)
	}
	if l.Status == "" {
		return fmt.Errorf("Layout.Status is empty")
	}
	seen := map[string]bool{}
	piece := func(where string, p engine.Piece) error {
		if p.Side < 0 || p.Side >= len(l.Sides) || p.Letter == "" || p.Name == "" {
			return fmt.Errorf("%s: piece %+v has no side, letter or name", where, p)
		}
		return nil
	}
	for _, c := range l.Cells {
		if c.Name == "" || seen[c.Name] {
			return fmt.Errorf("cell name %q is empty or repeated", c.Name)
		}
		seen[c.Name] = true
		if c.X < 0.5 || c.X > l.Width-0.5 || c.Y < 0.5 || c.Y > l.Height-0.5 {
			return fmt.Errorf("cell %s at (%g, %g) lies outside %g x %g", c.Name, c.X, c.Y, l.Width, l.Height)
		}
		if c.Shape != engine.SquareCell && c.Shape != engine.HexCell {
			return fmt.Errorf("cell %s has shape %q", c.Name, c.Shape)
		}
		for _, p := range append(slices.Clone(c.Pieces), c.Under...) {
			if err := piece(c.Name, p); err != nil {
				return err
			}
		}
	}
	for _, h := range l.Holdings {
		for _, p := range h.Pieces {
			if err := piece(h.Name, p); err != nil {
				return err
			}
		}
	}
	for _, lb := range l.Labels {
		if lb.X < -1 || lb.X > l.Width+1 || lb.Y < -1 || lb.Y > l.Height+1 {
			return fmt.Errorf("label %q at (%g, %g) lies outside %g x %g", lb.Text, lb.X, lb.Y, l.Width, l.Height)
		}
	}
	return nil
}
