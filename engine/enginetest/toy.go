package enginetest

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"pbem/engine"
)

// Toy is a tiny game of 2 to 4 players (3 by default) for testing the
// machinery above the engine (the record checker, the referee) on more than
// two players before a real one exists. It satisfies notation.Codec
// structurally (Rules, Decode, Encode, Notation) without importing notation.
//
// The players, sides A, B, C (and D), take turns adding 1, 2 or 3 to a
// shared total that starts at 0 (ply "+2"), or pass ("pass"). Whoever brings
// the total to exactly 21 wins; the others share second place. Each player
// scores what they added; a game settled by agreement or repetition ranks
// the players by score.
type Toy struct{}

// ToyTarget is the total that wins.
const ToyTarget = 21

// ToyMove is a toy ply: the amount added, 0 for a pass.
type ToyMove int

// ToyRules are the rules of the toy game.
type ToyRules struct{}

// ToyState is a toy position. It is immutable.
type ToyState struct {
	total  int
	scores []int // what each side has added; never modified after creation
	toMove int
	last   int // the side that played the last ply, -1 at the start
}

var toySides = []string{"A", "B", "C", "D"}

// Rules returns the toy rules.
func (Toy) Rules() engine.Rules { return ToyRules{} }

// Notation explains the toy notation.
func (Toy) Notation() string {
	return `A ply adds 1, 2 or 3 to the total: +1, +2 or +3 (the + may be
left out). pass passes the turn. Examples: +3  2  pass`
}

// ToySyntaxError reports text that is not a toy ply.
type ToySyntaxError struct{ Text string }

func (e *ToySyntaxError) Error() string {
	return fmt.Sprintf("unexpected %q; expected +1, +2, +3 or pass", e.Text)
}

// Decode reads a ply: "+N" or "N" (any N, refused by Apply unless 1-3), or
// "pass", case-insensitive, spaces around ignored.
func (Toy) Decode(s engine.State, text string) (engine.Move, error) {
	t := strings.ToLower(strings.TrimSpace(text))
	if t == "pass" || t == "p" {
		return ToyMove(0), nil
	}
	digits := strings.TrimPrefix(t, "+")
	n, err := strconv.Atoi(digits)
	if err != nil || digits == "" || digits[0] < '0' || digits[0] > '9' {
		return nil, &ToySyntaxError{Text: text}
	}
	if n < 1 || n > 3 {
		return nil, engine.Illegal("add 1, 2 or 3, not %d", n)
	}
	return ToyMove(n), nil
}

// Encode writes a ply canonically: "+N" or "pass".
func (Toy) Encode(s engine.State, m engine.Move) string {
	n, _ := m.(ToyMove)
	if n == 0 {
		return "pass"
	}
	return "+" + strconv.Itoa(int(n))
}

// ID is "toy".
func (ToyRules) ID() string { return "toy" }

// Summary is the one-line description.
func (ToyRules) Summary() string {
	return "a test game for 2-4 players: add 1-3 to a total; reach 21 to win"
}

// Help summarises the rules.
func (ToyRules) Help() string {
	return `Toy is a test game for 2 to 4 players (3 unless players=N says
otherwise), sides A, B, C and D. In turn, each player adds 1, 2 or 3
to a shared total that starts at 0, or passes. Whoever brings the
total to exactly 21 wins; the others share second place. A game
settled by agreement or repetition ranks the players by what they
added.`
}

// Sides are A, B, C (and D) for 2 to 4 players; the default is 3.
func (ToyRules) Sides(o engine.Options) ([]string, error) {
	n := o.Players
	if n == 0 {
		n = 3
	}
	if n < 2 || n > 4 {
		return nil, fmt.Errorf("toy: players must be 2, 3 or 4, not %d", n)
	}
	if o.Board != "" {
		return nil, fmt.Errorf("toy: no board may be named (got %q)", o.Board)
	}
	if o.First < 0 || o.First >= n {
		return nil, fmt.Errorf("toy: first must be 0..%d, not %d", n-1, o.First)
	}
	return toySides[:n:n], nil
}

// Start returns the empty total with side o.First to move.
func (r ToyRules) Start(o engine.Options) (engine.State, error) {
	sides, err := r.Sides(o)
	if err != nil {
		return nil, err
	}
	return ToyState{scores: make([]int, len(sides)), toMove: o.First, last: -1}, nil
}

// Total is the shared total.
func (s ToyState) Total() int { return s.total }

// Sides names the sides.
func (s ToyState) Sides() []string { return toySides[:len(s.scores):len(s.scores)] }

// ToMove is the side to move.
func (s ToyState) ToMove() int { return s.toMove }

// Legal lists pass and every amount that does not pass the target.
func (s ToyState) Legal() []engine.Move {
	if s.Outcome().Over {
		return nil
	}
	ms := []engine.Move{ToyMove(0)}
	for n := 1; n <= 3 && s.total+n <= ToyTarget; n++ {
		ms = append(ms, ToyMove(n))
	}
	return ms
}

// Apply adds the amount of m for the side to move.
func (s ToyState) Apply(m engine.Move) (engine.State, error) {
	n, ok := m.(ToyMove)
	switch {
	case !ok:
		return nil, engine.Illegal("not a toy move: %#v", m)
	case s.Outcome().Over:
		return nil, engine.Illegal("the game is over")
	case n < 0 || n > 3:
		return nil, engine.Illegal("add 1, 2 or 3, not %d", n)
	case s.total+int(n) > ToyTarget:
		return nil, engine.Illegal("the total may not pass %d: %d to go", ToyTarget, ToyTarget-s.total)
	}
	scores := append([]int(nil), s.scores...)
	scores[s.toMove] += int(n)
	return ToyState{
		total:  s.total + int(n),
		scores: scores,
		toMove: (s.toMove + 1) % len(s.scores),
		last:   s.toMove,
	}, nil
}

// Outcome: whoever reached the target wins.
func (s ToyState) Outcome() engine.Outcome {
	if s.total == ToyTarget && s.last >= 0 {
		return engine.Win(len(s.scores), s.last, fmt.Sprintf("%s reached %d", toySides[s.last], ToyTarget))
	}
	return engine.Ongoing
}

// Settle ranks the sides by score, best first.
func (s ToyState) Settle(reason string) engine.Outcome {
	rank := make([]int, len(s.scores))
	for i, x := range s.scores {
		rank[i] = 1
		for _, y := range s.scores {
			if y > x {
				rank[i]++
			}
		}
	}
	return engine.Outcome{Over: true, Rank: rank, Reason: reason}
}

// Key identifies the position: total, scores and side to move.
func (s ToyState) Key() string {
	return fmt.Sprintf("%d/%v/%d", s.total, s.scores, s.toMove)
}

// Render draws the total as a track numbered above and below, then the
// scores starting with side view (every side in seat order for -1).
func (s ToyState) Render(view int) string {
	var b strings.Builder
	tens, ones := "   ", "   "
	for i := 0; i <= ToyTarget; i++ {
		if i%10 == 0 {
			tens += strconv.Itoa(i / 10)
		} else {
			tens += " "
		}
		ones += strconv.Itoa(i % 10)
	}
	tens = strings.TrimRight(tens, " ")
	b.WriteString(tens + "\n" + ones + "\n   ")
	for i := 0; i <= ToyTarget; i++ {
		switch {
		case i == 0:
			b.WriteByte('|')
		case i <= s.total:
			b.WriteByte('#')
		default:
			b.WriteByte('.')
		}
	}
	b.WriteString("\n" + ones + "\n" + tens + "\n")
	fmt.Fprintf(&b, "total %d of %d (# marks the total; reach %d exactly to win)\n", s.total, ToyTarget, ToyTarget)
	b.WriteString("scores:")
	n := len(s.scores)
	start := 0
	if view >= 0 && view < n {
		start = view
	}
	for k := 0; k < n; k++ {
		i := (start + k) % n
		fmt.Fprintf(&b, " %s %d", toySides[i], s.scores[i])
		if i == view {
			b.WriteString(" (you)")
		}
	}
	b.WriteString("\n")
	if o := s.Outcome(); o.Over {
		fmt.Fprintf(&b, "game over: %s", o.Reason)
	} else {
		fmt.Fprintf(&b, "%s to move", toySides[s.toMove])
	}
	return b.String()
}

// Check verifies that the scores add up to the total.
func (s ToyState) Check() error {
	sum := 0
	for _, x := range s.scores {
		if x < 0 {
			return errors.New("a negative score")
		}
		sum += x
	}
	if sum != s.total || s.total > ToyTarget {
		return fmt.Errorf("scores %v do not add up to the total %d (at most %d)", s.scores, s.total, ToyTarget)
	}
	return nil
}
