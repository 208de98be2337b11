package tournament

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// swissPlayer is a player's pairing data.
type swissPlayer struct {
	id      string
	seed    int
	score   int      // half points
	colours []int    // seats of the games played, 0 White, 1 Black
	met     []string // opponents
	hadBye  bool
	pos     int // rank among those paired
	group   int // index of the score group
	gpos    int // position in the score group
	gsize   int
}

func (p *swissPlayer) diff() int {
	d := 0
	for _, c := range p.colours {
		d += 1 - 2*c
	}
	return d
}

// need returns the colour the player needs (0 White, 1 Black) or -1: at
// +1 or more Black, at -1 or less White; at 0 the other of two equal last
// colours.
func (p *swissPlayer) need() int {
	switch d := p.diff(); {
	case d > 0:
		return 1
	case d < 0:
		return 0
	}
	if n := len(p.colours); n >= 2 && p.colours[n-1] == p.colours[n-2] {
		return 1 - p.colours[n-1]
	}
	return -1
}

// strength grades the need: 3 strong (a difference of +/-2), 2 firm (it
// also avoids a third game in a row with one colour), 1 a need, 0 none.
func (p *swissPlayer) strength() int {
	nd := p.need()
	switch n := len(p.colours); {
	case nd < 0:
		return 0
	case abs(p.diff()) >= 2:
		return 3
	case n >= 2 && p.colours[n-1] == p.colours[n-2] && p.colours[n-1] != nd:
		return 2
	}
	return 1
}

// pref returns the colour the player wants (0 or 1) or -1 for none.
func (p *swissPlayer) pref() int {
	if m := p.need(); m >= 0 {
		return m
	}
	if n := len(p.colours); n > 0 {
		return 1 - p.colours[n-1]
	}
	return -1
}

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

// byePoints returns the half points of a bye: one point (for tables, the
// average score of a table: seats-1 half points), or none.
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
	for _, b := range e.Byes {
		s[b.Player] += e.byePoints()
	}
	return s
}

// swissField returns the active players ranked by score then seed, with
// their histories.
func (e *Event) swissField() []*swissPlayer {
	score := e.scores()
	byID := map[string]*swissPlayer{}
	var field []*swissPlayer
	for i, p := range e.Players {
		sp := &swissPlayer{id: p.ID, seed: i, score: score[p.ID]}
		byID[p.ID] = sp
		if !e.withdrawn(p.ID) {
			field = append(field, sp)
		}
	}
	games := slices.Clone(e.Games)
	slices.SortStableFunc(games, func(a, b Game) int { return cmp.Compare(a.Round, b.Round) })
	for _, g := range games {
		for i, id := range g.Players {
			p := byID[id]
			for j, o := range g.Players {
				if j != i {
					p.met = append(p.met, o)
				}
			}
			if !g.Forfeit && len(g.Players) == 2 {
				p.colours = append(p.colours, i)
			}
		}
	}
	for _, b := range e.Byes {
		byID[b.Player].hadBye = true
	}
	slices.SortStableFunc(field, func(a, b *swissPlayer) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.seed, b.seed))
	})
	for i, p := range field {
		p.pos = i
		if i > 0 && field[i-1].score == p.score {
			p.group, p.gpos = field[i-1].group, field[i-1].gpos+1
		} else if i > 0 {
			p.group = field[i-1].group + 1
		}
	}
	for i := len(field) - 1; i >= 0; i-- {
		p := field[i]
		if i == len(field)-1 || field[i+1].group != p.group {
			p.gsize = p.gpos + 1
		} else {
			p.gsize = field[i+1].gsize
		}
	}
	return field
}

// swissCost holds a pair's cost under criteria C1-C8 (index 0-7).
type swissCost [8]int64

// clash returns the lower strength of a's and b's need when they need the
// same colour, or 0.
func clash(a, b *swissPlayer) int {
	if m := a.need(); m >= 0 && m == b.need() {
		return min(a.strength(), b.strength())
	}
	return 0
}

// pairCost returns the costs of pairing a with b (a ranked above b).
func pairCost(a, b *swissPlayer) swissCost {
	var c swissCost
	switch clash(a, b) {
	case 3:
		c[1] = 1
	case 2:
		c[2] = 1
	}
	c[3] = int64(a.score - b.score)
	if a.group != b.group {
		c[4] = 1
	}
	if clash(a, b) > 0 {
		c[5] = 1
	}
	if p := a.pref(); p >= 0 && p == b.pref() {
		c[6] = 1
	}
	if a.group == b.group {
		c[7] = int64(abs(b.gpos - a.gpos - a.gsize/2))
	} else {
		c[7] = int64(a.gsize - 1 - a.gpos + b.gpos)
	}
	return c
}

// byeCost returns the cost of giving p the bye.
func byeCost(p *swissPlayer, n int) swissCost {
	return swissCost{int64(p.score)*int64(n+1) + int64(n-1-p.pos)}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// errNoPairing is returned when the absolute rules leave no pairing.
var errNoPairing = errors.New("no pairing obeys the rules")

// swissMatch pairs the field by the criteria; bye is the index of the
// player with the bye, or -1.
func swissMatch(field []*swissPlayer) (pairs [][2]int, bye int, err error) {
	n := len(field)
	odd := n%2 == 1
	type cand struct {
		i, j int
		c    swissCost
	}
	var cands []cand
	for i, a := range field {
		for j := i + 1; j < n; j++ {
			if !slices.Contains(a.met, field[j].id) {
				cands = append(cands, cand{i, j, pairCost(a, field[j])})
			}
		}
		if odd && !a.hadBye {
			cands = append(cands, cand{i, n, byeCost(a, n)})
		}
	}
	// Scale each criterion past the largest total of those after it.
	npairs := int64(n/2 + 1)
	var maxc swissCost
	for _, c := range cands {
		for k := range maxc {
			maxc[k] = max(maxc[k], c.c[k])
		}
	}
	var scale swissCost
	s := int64(1)
	const limit = int64(1) << 58
	for k := len(scale) - 1; k >= 0; k-- {
		scale[k] = s
		total := maxc[k] * npairs
		if k == 0 {
			total = maxc[k] // one bye
		}
		if total > 0 && s > limit/(total+1) {
			return nil, -1, fmt.Errorf("tournament: %d players are too many to pair exactly", n)
		}
		s *= total + 1
	}
	top := s // larger than any pairing's total cost
	edges := make([]edge, len(cands))
	for x, c := range cands {
		var w int64
		for k := range c.c {
			w += c.c[k] * scale[k]
		}
		edges[x] = edge{c.i, c.j, top - w}
	}
	nv := n
	if odd {
		nv++
	}
	mate := maxWeightMatching(nv, edges)
	bye = -1
	for i := range n {
		switch j := mate[i]; {
		case j == -1:
			return nil, -1, errNoPairing
		case j == n:
			bye = i
		case i < j:
			pairs = append(pairs, [2]int{i, j})
		}
	}
	return pairs, bye, nil
}

// sides orders a pair (a ranked above b) White first, by the rules above;
// board is the pair's board number.
func sides(a, b *swissPlayer, board int) (white, black *swissPlayer) {
	give := func(p *swissPlayer, colour int) (*swissPlayer, *swissPlayer) {
		if (p == a) == (colour == 0) {
			return a, b
		}
		return b, a
	}
	na, nb := a.need(), b.need()
	switch {
	case na >= 0 && na == nb && b.strength() > a.strength():
		return give(b, nb)
	case na >= 0:
		return give(a, na)
	case nb >= 0:
		return give(b, nb)
	}
	pa, pb := a.pref(), b.pref()
	switch {
	case pa >= 0 && pb >= 0 && pa == pb:
		for i, j := len(a.colours)-1, len(b.colours)-1; i >= 0 && j >= 0; i, j = i-1, j-1 {
			if a.colours[i] != b.colours[j] {
				return give(a, 1-a.colours[i])
			}
		}
		return give(a, pa)
	case pa >= 0:
		return give(a, pa)
	case pb >= 0:
		return give(b, pb)
	}
	return give(a, (board+1)%2)
}

// pairSwiss returns Swiss round r.
func (e *Event) pairSwiss(r int) (*Round, error) {
	field := e.swissField()
	pairs, bye, err := swissMatch(field)
	if err != nil {
		if errors.Is(err, errNoPairing) {
			return nil, fmt.Errorf("tournament: no pairing of round %d lets %d players meet new opponents with at most one bye each", r, len(field))
		}
		return nil, err
	}
	slices.SortFunc(pairs, func(x, y [2]int) int {
		a, b := field[x[0]], field[y[0]]
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(field[y[1]].score, field[x[1]].score), cmp.Compare(a.pos, b.pos))
	})
	out := &Round{Number: r}
	for k, pr := range pairs {
		w, b := sides(field[pr[0]], field[pr[1]], k+1)
		out.Games = append(out.Games, Game{Round: r, Board: k + 1, Players: []string{w.id, b.id}})
	}
	if bye >= 0 {
		out.Byes = []string{field[bye].id}
	}
	return out, nil
}
