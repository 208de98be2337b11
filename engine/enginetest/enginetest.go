// Package enginetest is the conformance suite every game passes, in the
// manner of testing/fstest.TestFS: applying never mutates, every generated
// move applies, moves generated elsewhere but not here are refused, random
// playouts end with a valid outcome and keep the game's invariants, rendering
// stays plain ASCII within 72 columns, and (given a codec) encode -> decode
// round-trips for every legal move seen.
package enginetest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"pbem/engine"
)

// Config selects what Run checks.
type Config struct {
	Rules engine.Rules
	// Options are the variants to test; nil means the zero Options only.
	Options []engine.Options
	// Playouts per variant (default 30) of at most MaxPlies plies (default 400).
	Playouts int
	MaxPlies int
	// MaxApply caps how many generated moves per position are applied and
	// round-tripped (default 64; the rest are sampled).
	MaxApply int
	// Seed makes the playouts reproducible.
	Seed uint64
	// Encode and Decode, when set, are the game's notation codec.
	Encode func(engine.State, engine.Move) string
	Decode func(engine.State, string) (engine.Move, error)
	// MustEnd requires every playout to end by the rules within MaxPlies.
	MustEnd bool
}

// Run runs the suite as subtests of t.
func Run(t *testing.T, c Config) {
	if c.Playouts == 0 {
		c.Playouts = 30
	}
	if c.MaxPlies == 0 {
		c.MaxPlies = 400
	}
	if c.MaxApply == 0 {
		c.MaxApply = 64
	}
	opts := c.Options
	if opts == nil {
		opts = []engine.Options{{}}
	}
	for _, o := range opts {
		name := fmt.Sprintf("players=%d,board=%q,first=%d", o.Players, o.Board, o.First)
		t.Run(name, func(t *testing.T) {
			sides, err := c.Rules.Sides(o)
			if err != nil {
				t.Fatalf("Sides(%+v) = %v", o, err)
			}
			s, err := c.Rules.Start(o)
			if err != nil {
				t.Fatalf("Start(%+v) = %v", o, err)
			}
			if !reflect.DeepEqual(s.Sides(), sides) {
				t.Fatalf("Start().Sides() = %v, want %v", s.Sides(), sides)
			}
			if err := s.Check(); err != nil {
				t.Fatalf("start position breaks an invariant: %v", err)
			}
			ended := 0
			for i := 0; i < c.Playouts; i++ {
				r := rand.New(rand.NewPCG(c.Seed, uint64(i)))
				if playout(t, c, s, r, i) {
					ended++
				}
				if t.Failed() {
					return
				}
			}
			t.Logf("%d of %d playouts ended by the rules within %d plies", ended, c.Playouts, c.MaxPlies)
		})
	}
}

// playout plays one random game and reports whether it ended by the rules.
func playout(t *testing.T, c Config, s engine.State, r *rand.Rand, n int) bool {
	t.Helper()
	line := engine.NewLine(s)
	var prevMoves []engine.Move
	for ply := 0; ply < c.MaxPlies; ply++ {
		s = line.State()
		where := fmt.Sprintf("playout %d, ply %d", n, ply+1)
		checkRender(t, s, where)
		out := line.Outcome()
		moves := s.Legal()
		if out.Over {
			checkOutcome(t, out, len(s.Sides()), where)
			if _, err := line.Play(firstOr(moves, prevMoves)); err == nil && len(moves)+len(prevMoves) > 0 {
				t.Errorf("%s: a move was accepted after the end (%s)", where, out.Reason)
			}
			return true
		}
		if len(moves) == 0 {
			t.Fatalf("%s: no legal move but the game is not over\n%s", where, s.Render(-1))
		}
		if p, ok := s.(engine.Picker); ok {
			checkPick(t, p, moves, uint64(n), uint64(ply), where)
		}
		if lc, ok := s.(engine.LegalCounter); ok && lc.CountLegal() != len(moves) {
			t.Fatalf("%s: CountLegal() = %d, but Legal lists %d moves\n%s", where, lc.CountLegal(), len(moves), s.Render(-1))
		}
		if s.ToMove() < 0 || s.ToMove() >= len(s.Sides()) {
			t.Fatalf("%s: ToMove() = %d, want 0..%d", where, s.ToMove(), len(s.Sides())-1)
		}
		key, pic := s.Key(), s.Render(-1)
		checkMoves(t, c, s, moves, r, where)
		// Moves legal in the previous position but not listed here are refused.
		for _, m := range prevMoves {
			if !contains(moves, m) {
				if got, err := s.Apply(m); err == nil && !equivalent(s, moves, got.Key()) {
					t.Fatalf("%s: Apply(%#v) succeeds, but Legal lists no move with that result\n%s", where, m, pic)
				} else if err != nil && !errors.Is(err, engine.ErrIllegalMove) {
					t.Fatalf("%s: Apply(%#v) (not generated) = %v, want an error wrapping ErrIllegalMove\n%s", where, m, err, pic)
				}
				break
			}
		}
		var m engine.Move
		if smp, ok := s.(engine.Sampler); ok && r.IntN(2) == 0 {
			m = smp.RandomMove(r)
			got, err := s.Apply(m)
			if err != nil {
				t.Fatalf("%s: RandomMove returned %#v, which does not apply: %v\n%s", where, m, err, pic)
			}
			if !contains(moves, m) && !equivalent(s, moves, got.Key()) {
				t.Fatalf("%s: RandomMove returned %#v, and Legal lists no move with that result", where, m)
			}
		} else {
			m = moves[r.IntN(len(moves))]
		}
		next, err := line.Play(m)
		if err != nil {
			t.Fatalf("%s: Play(%#v) = %v for a generated move\n%s", where, m, err, pic)
		}
		if s.Key() != key || s.Render(-1) != pic {
			t.Fatalf("%s: Apply(%#v) changed the position it was called on\nbefore:\n%s\nafter:\n%s", where, m, pic, s.Render(-1))
		}
		if err := next.State().Check(); err != nil {
			t.Fatalf("%s: after %#v an invariant breaks: %v\nbefore:\n%s\nafter:\n%s", where, m, err, pic, next.State().Render(-1))
		}
		prevMoves = moves
		line = next
	}
	if c.MustEnd {
		t.Errorf("playout %d did not end within %d plies\n%s", n, c.MaxPlies, line.State().Render(-1))
	}
	return false
}

// checkPick checks that PickLegal draws what moves[r.IntN(len(moves))]
// draws from the same random stream, and leaves the stream where it would.
func checkPick(t *testing.T, p engine.Picker, moves []engine.Move, seed1, seed2 uint64, where string) {
	t.Helper()
	r1, r2 := rand.New(rand.NewPCG(seed1, seed2)), rand.New(rand.NewPCG(seed1, seed2))
	got, n := p.PickLegal(r1)
	var want engine.Move
	if len(moves) > 0 {
		want = moves[r2.IntN(len(moves))]
	}
	if n != len(moves) || !reflect.DeepEqual(got, want) || r1.Uint64() != r2.Uint64() {
		t.Fatalf("%s: PickLegal = %#v of %d moves; want %#v of %d, as Legal()[r.IntN(len)] with the same use of r", where, got, n, want, len(moves))
	}
}

func firstOr(a, b []engine.Move) engine.Move {
	if len(a) > 0 {
		return a[0]
	}
	if len(b) > 0 {
		return b[0]
	}
	return nil
}

// checkMoves applies (a sample of) the generated moves, checks they are
// distinct and round-trip them through the codec.
func checkMoves(t *testing.T, c Config, s engine.State, moves []engine.Move, r *rand.Rand, where string) {
	t.Helper()
	idx := make([]int, len(moves))
	for i := range idx {
		idx[i] = i
	}
	if len(idx) > c.MaxApply {
		r.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		idx = idx[:c.MaxApply]
	}
	keys := map[string]int{}
	for _, i := range idx {
		m := moves[i]
		if _, err := s.Apply(m); err != nil {
			t.Fatalf("%s: generated move %#v does not apply: %v\n%s", where, m, err, s.Render(-1))
		}
		if c.Encode == nil {
			continue
		}
		text := c.Encode(s, m)
		if j, dup := keys[text]; dup {
			t.Fatalf("%s: moves %#v and %#v both encode as %q", where, moves[j], m, text)
		}
		keys[text] = i
		back, err := c.Decode(s, text)
		if err != nil {
			t.Fatalf("%s: Decode(Encode(%#v) = %q) = %v\n%s", where, m, text, err, s.Render(-1))
		}
		if !reflect.DeepEqual(back, m) {
			t.Fatalf("%s: Decode(%q) = %#v, want %#v", where, text, back, m)
		}
	}
}

// equivalent reports whether a listed move leads to the position with key k:
// moves that differ only in the order of independent actions are listed once.
func equivalent(s engine.State, moves []engine.Move, k string) bool {
	for _, x := range moves {
		if n, err := s.Apply(x); err == nil && n.Key() == k {
			return true
		}
	}
	return false
}

func contains(moves []engine.Move, m engine.Move) bool {
	for _, x := range moves {
		if reflect.DeepEqual(x, m) {
			return true
		}
	}
	return false
}

func checkOutcome(t *testing.T, o engine.Outcome, n int, where string) {
	t.Helper()
	if len(o.Rank) != n {
		t.Fatalf("%s: outcome %+v has %d ranks, want %d", where, o, len(o.Rank), n)
	}
	first := false
	for _, r := range o.Rank {
		if r < 1 || r > n {
			t.Fatalf("%s: outcome %+v has rank %d, want 1..%d", where, o, r, n)
		}
		first = first || r == 1
	}
	if !first {
		t.Fatalf("%s: outcome %+v ranks no side first", where, o)
	}
	if o.Reason == "" {
		t.Fatalf("%s: outcome %+v gives no reason", where, o)
	}
}

func checkRender(t *testing.T, s engine.State, where string) {
	t.Helper()
	for view := -1; view < len(s.Sides()); view++ {
		pic := s.Render(view)
		if pic == "" {
			t.Fatalf("%s: Render(%d) is empty", where, view)
		}
		for i, l := range strings.Split(pic, "\n") {
			if len(l) > 72 {
				t.Fatalf("%s: Render(%d) line %d is %d columns, want <= 72:\n%s", where, view, i+1, len(l), pic)
			}
			for _, ch := range []byte(l) {
				if ch < 0x20 || ch > 0x7e {
					t.Fatalf("%s: Render(%d) line %d has the non-ASCII byte %#x:\n%s", where, view, i+1, ch, pic)
				}
			}
		}
	}
}
