package tournament

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// points returns the half points of each seat of an ended game: for each
// other seat, 2 when ranked better, 1 when equal.
func points(ranks []int) []int {
	pts := make([]int, len(ranks))
	for i, r := range ranks {
		for j, s := range ranks {
			switch {
			case i == j:
			case r < s:
				pts[i] += 2
			case r == s:
				pts[i]++
			}
		}
	}
	return pts
}

// byeScore returns the half points of a bye: a requested half-point bye
// 1, a zero-point one 0, the pairing-allocated bye byePoints.
func (e *Event) byeScore(b Bye) int {
	switch b.Kind {
	case HalfPoint:
		return 1
	case ZeroPoint:
		return 0
	}
	return e.byePoints()
}

// byesSoFar returns the byes of the rounds paired so far: a requested bye
// of a round to come is not yet scored.
func (e *Event) byesSoFar() []Bye {
	paired := e.Paired()
	var out []Bye
	for _, b := range e.Byes {
		if b.Round <= paired {
			out = append(out, b)
		}
	}
	return out
}

// byePoints returns the half points of the pairing-allocated bye: one
// point (for tables, the average score of a table: seats-1 half points),
// or none.
func (e *Event) byePoints() int {
	if e.UnscoredByes {
		return 0
	}
	if e.Format == Tables {
		return e.seats() - 1
	}
	return 2
}

// scores returns every player's points so far, in half points.
func (e *Event) scores() map[string]int {
	s := map[string]int{}
	for _, g := range e.Games {
		if g.Ended() {
			for i, p := range points(g.Ranks) {
				s[g.Players[i]] += p
			}
		}
	}
	for _, b := range e.byesSoFar() {
		s[b.Player] += e.byeScore(b)
	}
	return s
}

// pairSwiss returns Swiss round r, paired by the Dutch system.
func (e *Event) pairSwiss(r int) (*Round, error) {
	f := e.dutchField()
	if len(f.active) == 0 {
		return nil, fmt.Errorf("tournament: %w for round %d: nobody is left to pair, every player has withdrawn or asked to sit it out", ErrNoValidPairing, r)
	}
	pairs, bye, err := dutchPair(f)
	if err != nil {
		if errors.Is(err, ErrNoValidPairing) {
			return nil, fmt.Errorf("tournament: %w for round %d: the %d players cannot all meet new opponents, with at most one bye each, without two who must have the same colour meeting", err, r, len(f.active))
		}
		return nil, err
	}
	field := f.active
	rank := func(p [2]int) (hi, lo int) { return min(p[0], p[1]), max(p[0], p[1]) }
	slices.SortFunc(pairs, func(x, y [2]int) int {
		xh, xl := rank(x)
		yh, yl := rank(y)
		return cmp.Or(cmp.Compare(field[yh].score, field[xh].score), cmp.Compare(field[yl].score, field[xl].score), cmp.Compare(xh, yh))
	})
	out := &Round{Number: r}
	for k, pr := range pairs {
		out.Games = append(out.Games, Game{Round: r, Board: k + 1, Players: []string{field[pr[0]].id, field[pr[1]].id}})
	}
	if bye >= 0 {
		out.Byes = []string{field[bye].id}
	}
	return out, nil
}
