package tournament

import (
	"cmp"
	"errors"
	"fmt"
	"math/bits"
	"slices"
)

// The Dutch system (FIDE C.04.3) pairs bracket by bracket from the top
// score group down. Each bracket is paired by maximum-weight matchings
// over the whole field: an edge's weight stacks one field per criterion,
// most important highest (completion and the bye C4/C9, pairs and scores
// in this bracket C5-C7 and the next C8, colours C10-C13, floats C14-C21),
// so the heaviest matching is the best pairing by the criteria read in
// order; then the bracket's choices are fixed one at a time (which
// moved-down players are paired, their opponents, the exchanges between
// S1 and S2, each S1 player's opponent) by raising the weight of the
// choice the rules try first and keeping it when a heaviest matching still
// takes it. The order of the fields and of the fixing steps follows
// bbpPairings, the FIDE-endorsed engine that pairs this way.

// colour values: white, black, or none.
const (
	white  = 0
	black  = 1
	noSide = -1
)

func invert(c int) int {
	if c < 0 {
		return c
	}
	return 1 - c
}

// float directions of a past round.
const (
	floatDown = iota
	floatUp
	floatNone
)

// dutchRound is what a player did in one round.
type dutchRound struct {
	played bool // a game was played (not a bye, not a forfeit)
	opp    int  // the opponent's index in the field, -1 for none
	colour int  // of a played game
	points int  // half points scored in the round
}

// dutchPlayer is a player's pairing data.
type dutchPlayer struct {
	id     string
	seed   int // index in Event.Players: the pairing number less one
	rank   int // the pairing number less one among the players counted (see dutchField)
	score  int // half points, with the virtual points of the round paired
	accel  []int
	rounds []dutchRound
	played int // games played

	imbalance int  // |Whites - Blacks|
	pref      int  // colour preference
	repeated  int  // the colour of the last two games when they had one, or none
	strong    bool // a strong (not absolute) preference
	byeOK     bool // may get the pairing-allocated bye
}

func (p *dutchPlayer) absImbalance() bool { return p.imbalance > 1 }
func (p *dutchPlayer) absPref() bool      { return p.absImbalance() || p.repeated != noSide }

// scoreBack returns the score before the last k rounds, with the virtual
// points of the round then paired.
func (p *dutchPlayer) scoreBack(k int) int {
	s := p.score - p.accel[len(p.rounds)] + p.accel[max(0, len(p.rounds)-k)]
	for i := len(p.rounds) - k; i < len(p.rounds); i++ {
		if i >= 0 {
			s -= p.rounds[i].points
		}
	}
	return s
}

// dutchField is the field the Dutch system pairs.
type dutchField struct {
	players   []*dutchPlayer // by seed
	active    []*dutchPlayer // to pair, by score then seed
	played    int            // rounds played
	total     int            // rounds of the event
	forbidden map[[2]int]bool
	initial   int // the colour of E.5's higher ranked player with an odd rank
}

// dutchField gathers the active players' histories: those who have not
// withdrawn and asked for no bye in the round to pair. Their scores carry
// the virtual points of each round (Acceleration). A player's rank, for
// the colours of E.5, is the pairing number among the players who have
// been paired in some round or are paired in this one, as the pairing
// engines number them.
func (e *Event) dutchField() *dutchField {
	f := &dutchField{played: e.Paired(), total: e.TotalRounds(), forbidden: map[[2]int]bool{}, initial: white}
	if e.InitialBlack {
		f.initial = black
	}
	byID := map[string]*dutchPlayer{}
	for i, p := range e.Players {
		dp := &dutchPlayer{id: p.ID, seed: i, rounds: make([]dutchRound, f.played), accel: make([]int, f.played+1)}
		for r := range dp.rounds {
			dp.rounds[r] = dutchRound{opp: -1, colour: noSide}
		}
		for r := range dp.accel {
			dp.accel[r] = e.Acceleration(p.ID, r+1)
		}
		f.players = append(f.players, dp)
		byID[p.ID] = dp
	}
	for _, g := range e.Games {
		if len(g.Players) != 2 {
			continue
		}
		pts := points(g.Ranks)
		for i, id := range g.Players {
			p, o := byID[id], byID[g.Players[1-i]]
			f.forbidden[[2]int{p.seed, o.seed}] = true
			rd := &p.rounds[g.Round-1]
			rd.opp = o.seed
			if g.Ended() {
				rd.points = pts[i]
			}
			if !g.Forfeit {
				rd.played, rd.colour = true, i
			}
		}
	}
	allocated := map[string]bool{} // the pairing-allocated byes
	for _, b := range e.byesSoFar() {
		p := byID[b.Player]
		p.rounds[b.Round-1].points = e.byeScore(b)
		if b.Kind == PairingBye {
			allocated[b.Player] = true
		}
	}
	for _, p := range f.players {
		p.byeOK = !allocated[p.id]
		p.score = p.accel[f.played]
		var whites, blacks, run int
		for _, rd := range p.rounds {
			p.score += rd.points
			if !rd.played {
				// A bye, or a forfeit won, is a point scored without
				// play: no second one (C2).
				if rd.points >= 2 {
					p.byeOK = false
				}
				continue
			}
			p.played++
			if rd.colour == white {
				whites++
			} else {
				blacks++
			}
			if run == 0 || rd.colour != p.repeated {
				run = 1
			} else {
				run++
			}
			p.repeated = rd.colour
		}
		if len(p.rounds) == 0 || p.played == 0 {
			p.repeated = noSide
		}
		lower := white
		if whites > blacks {
			lower = black
		}
		p.imbalance = max(whites-blacks, blacks-whites)
		switch {
		case p.imbalance > 1:
			p.pref = lower
		case run > 1:
			p.pref = invert(p.repeated)
		case p.imbalance > 0:
			p.pref = lower
		case run > 0:
			p.pref = invert(p.repeated)
		default:
			p.pref = noSide
		}
		if run <= 1 {
			p.repeated = noSide
		}
		p.strong = !p.absPref() && p.imbalance > 0
	}
	rank := 0
	for _, p := range f.players {
		_, asked := e.requested(p.id, f.played+1)
		out := asked || e.withdrawn(p.id)
		if !out {
			f.active = append(f.active, p)
		}
		p.rank = rank
		if !out || slices.ContainsFunc(p.rounds, func(rd dutchRound) bool { return rd.opp >= 0 }) || allocated[p.id] {
			rank++
		}
	}
	slices.SortStableFunc(f.active, func(a, b *dutchPlayer) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.seed, b.seed))
	})
	return f
}

// compatible reports whether a and b may meet by the absolute criteria:
// not met before (C1), and no two players with the same absolute colour
// preference (C3) unless one of them is a topscorer (more than half the
// possible score) pairing the last round.
func (f *dutchField) compatible(a, b *dutchPlayer) bool {
	if f.forbidden[[2]int{a.seed, b.seed}] {
		return false
	}
	return !a.absPref() || !b.absPref() || a.pref != b.pref ||
		f.played >= f.total-1 && (a.score > f.played || b.score > f.played)
}

// getFloat returns p's float in the round k rounds back.
func getFloat(f *dutchField, p *dutchPlayer, k int) int {
	rd := p.rounds[f.played-k]
	if !rd.played {
		if rd.points > 0 {
			return floatDown
		}
		return floatNone
	}
	ps, os := p.scoreBack(k), f.players[rd.opp].scoreBack(k)
	switch {
	case ps > os:
		return floatDown
	case ps < os:
		return floatUp
	}
	return floatNone
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// bitsFor returns the bits needed to write n.
func bitsFor(n int) int { return bits.Len(uint(n)) }

// dutchWeights holds what the edge weights of one pairing are built from.
type dutchWeights struct {
	f           *dutchField
	sizeBits    int         // bits of the largest score group's size
	groupsShift int         // bits of all the score groups' fields
	groupShift  map[int]int // a score's field offset in those
	byeScore    int         // score of the bye's receiver
	byeSingle   bool        // C9 applies: the bye goes to the single downfloater
	unplayed    map[int]int // rank of a number of games played, for C9
}

func (w *dutchWeights) byeCandidate(p *dutchPlayer) bool {
	return p.byeOK && p.score <= w.byeScore
}

// colourBits shifts in the colour criteria's fields (C10-C13) of a pair
// of p (the lower) and o (the higher); mask when p is in the bracket.
func (w *dutchWeights) colourBits(r wide, p, o *dutchPlayer, mask bool) wide {
	r = r.shl(w.sizeBits).or(b2u(mask && (!p.absImbalance() || !o.absImbalance() || p.pref != o.pref)))
	var rep bool
	switch {
	case p.imbalance == o.imbalance:
		rep = p.repeated == noSide || p.repeated != o.repeated
	case p.imbalance > o.imbalance:
		rep = o.repeated != invert(p.pref)
	default:
		rep = p.repeated != invert(p.pref)
	}
	r = r.shl(w.sizeBits).or(b2u(mask && (!p.absPref() || !o.absPref() || p.pref != o.pref || rep)))
	r = r.shl(w.sizeBits).or(b2u(mask && (p.pref != o.pref || p.pref == noSide || o.pref == noSide)))
	r = r.shl(w.sizeBits).or(b2u(mask && (!p.strong && !p.absPref() || !o.strong && !o.absPref() ||
		p.absPref() && o.absPref() || p.pref != o.pref)))
	return r
}

// totalBits returns the bits of the fields below the completion field.
func (w *dutchWeights) totalBits() int {
	s, g := w.sizeBits, w.groupsShift
	t := s + g + s + g + 2*s + 4*s
	if w.f.played > 0 {
		t += 2*s + 2*g
	}
	if w.f.played > 1 {
		t += 2*s + 2*g
	}
	return t + 3*s + 1
}

// edge returns the basic weight of pairing hi with lo (hi ranked higher);
// inCur when lo is in the current bracket, inNext when in the next.
func (w *dutchWeights) edge(hi, lo *dutchPlayer, inCur, inNext bool) wide {
	f := w.f
	var r wide
	if !f.compatible(hi, lo) {
		return r
	}
	r = wideOf(1 + b2u(!w.byeCandidate(hi)) + b2u(!w.byeCandidate(lo)))
	// C5-C7: pairs, and scores paired, in the current bracket.
	r = r.shl(w.sizeBits).or(b2u(inCur))
	r = r.shl(w.groupsShift)
	if inCur {
		r = r.add(wideOf(1).shl(w.groupShift[hi.score]))
	}
	// C8: the same in the next bracket.
	r = r.shl(w.sizeBits).or(b2u(inNext))
	r = r.shl(w.groupsShift)
	if inNext {
		r = r.add(wideOf(1).shl(w.groupShift[hi.score]))
	}
	// C9: the bye's receiver has played the most games.
	r = r.shl(2 * w.sizeBits)
	if w.byeSingle {
		if hi.score == w.byeScore {
			r = r.or(uint64(w.unplayed[hi.played]))
		}
		if lo.score == w.byeScore {
			r = r.add(wideOf(uint64(w.unplayed[lo.played])))
		}
	}
	r = w.colourBits(r, lo, hi, inCur)
	down := func(p *dutchPlayer, k int) bool { return getFloat(f, p, k) == floatDown }
	up := func(p *dutchPlayer, k int) bool { return getFloat(f, p, k) == floatUp }
	if f.played > 0 {
		// C14, C15: no downfloat or upfloat repeated from the last round.
		r = r.shl(w.sizeBits)
		if inCur {
			r = r.or(b2u(down(lo, 1))).add(wideOf(b2u(hi.score <= lo.score && down(hi, 1))))
		}
		r = r.shl(w.sizeBits)
		if inCur {
			r = r.or(b2u(!(hi.score > lo.score && up(lo, 1))))
		}
	}
	if f.played > 1 {
		// C16, C17: nor from two rounds before.
		r = r.shl(w.sizeBits)
		if inCur {
			r = r.or(b2u(down(lo, 2))).add(wideOf(b2u(hi.score <= lo.score && down(hi, 2))))
		}
		r = r.shl(w.sizeBits)
		if inCur {
			r = r.or(b2u(!(hi.score > lo.score && up(lo, 2))))
		}
	}
	if f.played > 0 {
		// C18, C19: the scores of repeated floaters.
		r = r.shl(w.groupsShift)
		if inCur {
			r = r.add(wideOf(b2u(down(lo, 1))).shl(w.groupShift[lo.score]))
			r = r.add(wideOf(b2u(down(hi, 1))).shl(w.groupShift[hi.score]))
		}
		r = r.shl(w.groupsShift)
		if inCur && !(up(lo, 1) && hi.score > lo.score) {
			r = r.add(wideOf(1).shl(w.groupShift[hi.score]))
		}
	}
	if f.played > 1 {
		// C20, C21: and from two rounds before.
		r = r.shl(w.groupsShift)
		if inCur {
			r = r.add(wideOf(b2u(down(lo, 2))).shl(w.groupShift[lo.score]))
			r = r.add(wideOf(b2u(down(hi, 2))).shl(w.groupShift[hi.score]))
		}
		r = r.shl(w.groupsShift)
		if inCur && !(up(lo, 2) && hi.score > lo.score) {
			r = r.add(wideOf(1).shl(w.groupShift[hi.score]))
		}
	}
	// Room for the order of exchanges and of the pairs.
	return r.shl(3*w.sizeBits + 1)
}

// dutchMatcher keeps the edge weights of the field, by vertex (index in
// the active players).
type dutchMatcher struct {
	n     int
	w     []wide
	fixed []int // a finalized pair's other vertex, or -1
	// shift moves every weight up by that many bits, and extra adds to
	// the edges it holds (keyed lower vertex first): preferences that
	// rank below every criterion.
	shift int
	extra map[[2]int]wide
	edges []wedge // reused by compute
}

func (m *dutchMatcher) set(i, j int, w wide) {
	m.w[i*m.n+j], m.w[j*m.n+i] = w, w
}

// compute returns a maximum-weight matching: mate[v], or v when unmatched.
// The pairs already finalized are kept and left out of the matching.
func (m *dutchMatcher) compute() []int {
	var free []int // vertices by matching index
	for v := range m.n {
		if m.fixed[v] < 0 {
			free = append(free, v)
		}
	}
	edges := m.edges[:0]
	for x, i := range free {
		for y := x + 1; y < len(free); y++ {
			if w := m.w[i*m.n+free[y]]; !w.isZero() {
				if m.shift > 0 {
					w = w.shl(m.shift).add(m.extra[[2]int{min(i, free[y]), max(i, free[y])}])
				}
				edges = append(edges, wedge{x, y, w})
			}
		}
	}
	m.edges = edges
	mate := slices.Clone(m.fixed)
	for x, y := range matchWeighted(len(free), edges, false) {
		if y < 0 {
			mate[free[x]] = free[x]
		} else {
			mate[free[x]] = free[y]
		}
	}
	return mate
}

// finalize keeps the pair u-v: every other edge of the two is removed,
// and the pair is left out of later matchings.
func (m *dutchMatcher) finalize(u, v int, top wide) {
	for x := range m.n {
		if x != u {
			if x == v {
				m.set(u, x, top)
			} else {
				m.set(u, x, wide{})
			}
		}
		if x != v && x != u {
			m.set(v, x, wide{})
		}
	}
	m.fixed[u], m.fixed[v] = v, u
}

// preferS2 sets, for the next compute, each S1 player's preference for
// the S2 players of rem (the highest first) in a field of prefBits bits of
// its own, the first S1 player's highest, all below the weights shifted up.
// Only the edges to s2 get one; the order counts every unpaired player
// below the S1 player, as the rules rank them.
func (m *dutchMatcher) preferS2(rem, s1, s2 []int, vertex []int, matched []bool, base [][]wide, prefBits int) {
	m.shift = len(s1) * prefBits
	for k, p := range s1 {
		pv := vertex[p]
		var add uint64
		for oi := len(rem) - 1; oi >= 0; oi-- {
			o := rem[oi]
			ov := vertex[o]
			if o <= p || matched[ov] {
				continue
			}
			if !base[o][p].isZero() && slices.Contains(s2, o) {
				m.extra[[2]int{min(pv, ov), max(pv, ov)}] = wideOf(add).shl((len(s1) - 1 - k) * prefBits)
			}
			add++
		}
	}
}

// ErrNoValidPairing is returned (wrapped) by Pair when the absolute
// criteria of the Dutch system leave no pairing: every pair would be a
// rematch, a second bye, or two players who both must have one colour.
var ErrNoValidPairing = errors.New("no valid pairing")

// dutchPair pairs the field: pairs of vertices (the first of each White)
// and the bye's vertex, or -1.
func dutchPair(f *dutchField) (pairs [][2]int, bye int, err error) {
	sorted := f.active
	n := len(sorted)
	if n == 0 {
		return nil, -1, nil
	}
	w := &dutchWeights{f: f, groupShift: map[int]int{}, unplayed: map[int]int{}}
	maxGroup, rep := 0, 0
	for i := n - 1; i >= 0; i-- {
		rep++
		if i == 0 || sorted[i].score < sorted[i-1].score {
			w.groupShift[sorted[i].score] = w.groupsShift
			maxGroup = max(maxGroup, rep)
			w.groupsShift += bitsFor(rep)
			rep = 0
		}
	}
	w.sizeBits = bitsFor(maxGroup)
	topBits := w.totalBits() + 2
	if topBits+4 >= wideBits {
		return nil, -1, fmt.Errorf("tournament: %d players in %d score groups are too many to pair by the Dutch system", n, len(w.groupShift))
	}
	top := wideOf(1).shl(topBits).sub(wideOf(1)) // the largest weight
	m := &dutchMatcher{n: n, w: make([]wide, n*n), fixed: make([]int, n), extra: map[[2]int]wide{}}
	for v := range m.fixed {
		m.fixed[v] = -1
	}
	topScore := sorted[0].score
	for i, p := range sorted {
		for j, o := range sorted[:i] {
			var ew wide
			if n%2 == 1 {
				if f.compatible(p, o) {
					ew = wideOf(1 + b2u(!p.byeOK) + b2u(!o.byeOK)).shl(w.groupsShift).
						or(uint64(w.groupShift[p.score] + w.groupShift[o.score])).
						shl(w.sizeBits).or(b2u(p.score >= topScore))
				}
			} else {
				ew = w.edge(o, p, false, false)
			}
			m.set(i, j, ew)
		}
	}
	{
		mate := m.compute()
		unmatched := 0
		for v, u := range mate {
			if u == v {
				unmatched++
				if unmatched > 1 || !sorted[v].byeOK {
					return nil, -1, ErrNoValidPairing
				}
			}
		}
		if n%2 == 1 {
			for v, u := range mate {
				if u == v {
					w.byeScore = sorted[v].score
					break
				}
			}
			if w.byeScore >= topScore {
				w.byeSingle = true
				for v, p := range sorted {
					if p.score < topScore {
						break
					}
					if sorted[mate[v]].score < topScore {
						w.byeSingle = false
						break
					}
				}
			}
			var counts []int
			for _, p := range sorted {
				if p.score == w.byeScore {
					counts = append(counts, p.played)
				}
			}
			slices.Sort(counts)
			slices.Reverse(counts)
			for rank, c := range counts {
				w.unplayed[c] = rank
			}
			for i, p := range sorted {
				for j, o := range sorted[:i] {
					m.set(i, j, w.edge(o, p, false, false))
				}
			}
		}
	}

	partner := make([]int, n)
	for i := range partner {
		partner[i] = -1
	}
	var byIndex []*dutchPlayer // players of the current bracket and the next
	var vertex []int           // their vertices
	next := 0
	for next < n && sorted[next].score >= topScore {
		byIndex = append(byIndex, sorted[next])
		vertex = append(vertex, len(vertex))
		next++
	}
	matched := make([]bool, n)
	sgBegin, sgBeginVertex := 0, 0 // moved-down players; first vertex of the score group
	for len(byIndex) > 1 || next != n {
		nextBegin := len(byIndex)
		nextBeginVertex := sgBeginVertex + (nextBegin - sgBegin)
		groupStart := next
		for next < n && sorted[next].score >= sorted[groupStart].score {
			byIndex = append(byIndex, sorted[next])
			vertex = append(vertex, vertex[len(vertex)-1]+1)
			next++
		}
		// base[l][s]: the weight of byIndex[s] (higher) with byIndex[l].
		base := make([][]wide, len(byIndex))
		for l := sgBegin; l < len(byIndex); l++ {
			base[l] = make([]wide, l)
			for s := range l {
				base[l][s] = w.edge(byIndex[s], byIndex[l], l < nextBegin, l >= nextBegin)
			}
		}
		for l := range base {
			for s := range base[l] {
				m.set(vertex[l], vertex[s], base[l][s])
			}
		}
		ewc := func(s, l, sRem, remPairs int) wide {
			r := base[l][s]
			if r.isZero() {
				return r
			}
			// Fewest exchanges, then the smallest differences of the
			// exchanged players' numbers.
			add := wideOf(b2u(sRem < remPairs)).shl(2 * w.sizeBits).sub(wideOf(uint64(sRem))).shl(1)
			return r.add(add)
		}
		inBracket := func(v int) bool { return v >= sgBeginVertex && v < nextBeginVertex }
		stable := m.compute()

		// Choose the moved-down players to pair in this bracket.
		var mdScore, remMD, remMatchedMD int
		for i := range sgBegin {
			if i == 0 || byIndex[i].score < mdScore {
				mdScore = byIndex[i].score
				remMatchedMD, remMD = 0, 0
				for j := i; j < len(byIndex) && byIndex[j].score >= mdScore; j++ {
					remMD++
					if inBracket(stable[vertex[j]]) {
						remMatchedMD++
					}
				}
			}
			if remMatchedMD == 0 {
				continue
			}
			pv := vertex[i]
			if remMD <= remMatchedMD {
				matched[pv] = true
				continue
			}
			remMD--
			if !inBracket(stable[pv]) {
				for o := sgBegin; o < nextBegin; o++ {
					if ew := base[o][i]; !ew.isZero() {
						m.set(pv, vertex[o], ew.or(1))
					}
				}
				stable = m.compute()
			}
			if inBracket(stable[pv]) {
				matched[pv] = true
				remMatchedMD--
				for o := sgBegin; o < nextBegin; o++ {
					if ew := base[o][i]; !ew.isZero() {
						m.set(pv, vertex[o], ew.or(uint64(nextBegin-sgBegin)).add(wideOf(1)))
					}
				}
			}
		}

		// Choose the opponents of the moved-down players.
		for i := range sgBegin {
			pv := vertex[i]
			if !matched[pv] {
				continue
			}
			add := uint64(len(byIndex))
			best := -1 // the opponent given the most
			for o := nextBegin - 1; o >= sgBegin; o-- {
				ov := vertex[o]
				if matched[ov] {
					continue
				}
				if ew := base[o][i]; !ew.isZero() {
					m.set(pv, ov, ew.add(wideOf(add)))
					add++
					best = ov
				}
			}
			// The weights of the matching had only the edges of pv to
			// raise: when it already pairs pv with the opponent raised the
			// most, it stays the heaviest.
			if stable[pv] != best {
				stable = m.compute()
			}
			mv := stable[pv]
			matched[mv] = true
			m.finalize(pv, mv, top)
		}

		// The remainder: the bracket's resident players still unpaired.
		var rem []int
		remPairs := 0
		for i := sgBegin; i < nextBegin; i++ {
			pv := vertex[i]
			if stable[pv] < sgBeginVertex {
				continue
			}
			rem = append(rem, i)
			if stable[pv] < pv {
				remPairs++
			}
		}
		firstGroupEnd := remPairs // index in rem of the first of S2
		for oi, o := range rem {
			for pi := range rem[:oi] {
				m.set(vertex[rem[pi]], vertex[o], ewc(rem[pi], o, pi, remPairs))
			}
		}
		// Should no exchange be needed, S1 is the first remPairs of the
		// remainder and the S2 players they meet are chosen below the
		// exchanges: the same matching can make those choices too.
		prefBits := bitsFor(len(rem) + 1)
		per := max(1, (wideBits-16-topBits)/prefBits)
		early := remPairs > 0 && remPairs <= per
		if early {
			m.preferS2(rem, rem[:remPairs], rem[remPairs:], vertex, matched, base, prefBits)
		}
		stable = m.compute()
		m.shift = 0
		clear(m.extra)
		exchanged := func(v int) bool { return stable[v] <= v || stable[v] >= nextBeginVertex }
		exchanges := 0
		for _, i := range rem {
			if firstGroupEnd >= len(rem) || i >= rem[firstGroupEnd] {
				break
			}
			exchanges += int(b2u(exchanged(vertex[i])))
		}

		// Exchange the lowest of S1 where possible.
		left := exchanges
		pRem := remPairs
		for pi := firstGroupEnd; pi > 0 && left > 0; {
			oi := pi
			pRem--
			pi--
			pv := vertex[rem[pi]]
			if stable[pv] > pv && stable[pv] < nextBeginVertex {
				for ; oi < len(rem); oi++ {
					if ew := ewc(rem[pi], rem[oi], pRem, remPairs); !ew.isZero() {
						m.set(pv, vertex[rem[oi]], ew.sub(wideOf(1)))
					}
				}
				stable = m.compute()
			}
			ex := exchanged(pv)
			if ex {
				left--
			}
			for oi := pi + 1; oi < len(rem); oi++ {
				if ex {
					base[rem[oi]][rem[pi]] = wide{}
				}
				m.set(pv, vertex[rem[oi]], ewc(rem[pi], rem[oi], pRem, remPairs))
			}
		}

		// Exchange the highest of S2 where possible.
		left = exchanges
		ri := remPairs
		for pi := firstGroupEnd; pi < len(rem) && left > 1; pi++ {
			pv := vertex[rem[pi]]
			already := stable[pv] > pv && stable[pv] < nextBeginVertex
			if !already {
				for oi := pi + 1; oi < len(rem); oi++ {
					if ew := ewc(rem[pi], rem[oi], ri, remPairs); !ew.isZero() {
						m.set(pv, vertex[rem[oi]], ew.add(wideOf(1)))
					}
				}
				stable = m.compute()
			}
			if stable[pv] > pv && stable[pv] < nextBeginVertex {
				left--
				for oi := range pi {
					base[rem[pi]][rem[oi]] = wide{}
					m.set(pv, vertex[rem[oi]], wide{})
				}
				for o := nextBegin; o < len(byIndex); o++ {
					base[o][rem[pi]] = wide{}
					m.set(pv, vertex[o], wide{})
				}
			}
			if !already {
				for oi := pi + 1; oi < len(rem); oi++ {
					m.set(pv, vertex[rem[oi]], ewc(rem[pi], rem[oi], ri, remPairs))
				}
			}
			ri++
		}

		// Keep the exchanges chosen; drop the bits that chose them.
		for pi, p := range rem {
			pv := vertex[p]
			for oi := pi + 1; oi < len(rem); oi++ {
				ov := vertex[rem[oi]]
				if stable[pv] <= pv || stable[pv] >= nextBeginVertex || stable[ov] > ov && stable[ov] < nextBeginVertex {
					base[rem[oi]][p] = wide{}
				}
				m.set(pv, ov, base[rem[oi]][p])
			}
		}

		// Each S1 player meets the highest of S2 possible, in order: the
		// first S1 player's choice comes first, then the second's... One
		// matching makes the choices of many S1 players at once, each
		// player's preferences in a field of their own above the weights
		// shifted up, the first player's highest; it picks what a
		// matching per player would.
		var s1 []int
		for _, p := range rem {
			if pv := vertex[p]; stable[pv] > pv && stable[pv] < nextBeginVertex {
				s1 = append(s1, p)
			}
		}
		if early && exchanges == 0 {
			s1 = nil // chosen with the exchanges
			for _, p := range rem[:remPairs] {
				pv := vertex[p]
				mv := stable[pv]
				matched[pv], matched[mv] = true, true
				m.finalize(pv, mv, top)
			}
		}
		for len(s1) > 0 {
			chunk := s1[:min(per, len(s1))]
			s1 = s1[len(chunk):]
			m.preferS2(rem, chunk, rem, vertex, matched, base, prefBits)
			stable = m.compute()
			m.shift = 0
			clear(m.extra)
			for _, p := range chunk {
				pv := vertex[p]
				mv := stable[pv]
				matched[pv], matched[mv] = true, true
				m.finalize(pv, mv, top)
			}
		}

		// The next bracket: the unpaired players move down.
		var nb []*dutchPlayer
		var nv []int
		sgBegin = 0
		w.byeSingle = n%2 == 1 && groupStart != n && w.byeScore >= sorted[groupStart].score
		for i, p := range byIndex {
			pv := vertex[i]
			if i < nextBegin && matched[pv] {
				partner[pv], partner[stable[pv]] = stable[pv], pv
				continue
			}
			nb = append(nb, p)
			nv = append(nv, pv)
			if i < nextBegin {
				sgBegin++
			}
			if w.byeSingle && sorted[stable[pv]].score < sorted[groupStart].score {
				w.byeSingle = false
			}
		}
		if groupStart == n && len(nb) == len(byIndex) {
			// The last bracket paired nobody: a bug, not a rule.
			return nil, -1, fmt.Errorf("tournament: the Dutch pairing of %d players made no progress with %d left to pair", n, len(nb))
		}
		byIndex, vertex = nb, nv
		sgBeginVertex = nextBeginVertex
	}

	bye = -1
	for v, p := range sorted {
		u := partner[v]
		switch {
		case u < 0:
			bye = v
		case v < u:
			if dutchColour(f, p, sorted[u], v, u) == white {
				pairs = append(pairs, [2]int{v, u})
			} else {
				pairs = append(pairs, [2]int{u, v})
			}
		}
	}
	return pairs, bye, nil
}

// dutchColour returns the colour of p against o (rules E.1-E.5); pv and ov
// are their ranks (vertices).
func dutchColour(f *dutchField, p, o *dutchPlayer, pv, ov int) int {
	if c := neutralColour(p, o); c != noSide {
		return c
	}
	below := pv > ov // p ranked below o
	if p.pref == noSide {
		// E.5: the higher ranked player gets the initial colour (White,
		// or Black with XXC black1) with an odd pairing number.
		if below {
			if o.rank%2 == 1 {
				return f.initial
			}
			return invert(f.initial)
		}
		if p.rank%2 == 1 {
			return invert(f.initial)
		}
		return f.initial
	}
	if below {
		return invert(o.pref)
	}
	return p.pref
}

// neutralColour returns p's colour by E.1-E.4, or none when they leave it
// to the ranking.
func neutralColour(p, o *dutchPlayer) int {
	switch {
	case p.pref != o.pref || p.pref == noSide || o.pref == noSide:
		if p.pref != noSide {
			return p.pref
		}
		if o.pref != noSide {
			return invert(o.pref)
		}
		return noSide
	case p.absPref() && (p.imbalance > o.imbalance || !o.absPref()):
		return p.pref
	case o.absPref() && (o.imbalance > p.imbalance || !p.absPref()):
		return invert(o.pref)
	case p.strong && !o.strong:
		return p.pref
	case o.strong && !p.strong:
		return invert(o.pref)
	}
	// E.4: alternate from the latest round in which they differed.
	i, j := len(p.rounds)-1, len(o.rounds)-1
	for {
		for i >= 0 && !p.rounds[i].played {
			i--
		}
		for j >= 0 && !o.rounds[j].played {
			j--
		}
		if i < 0 || j < 0 {
			return noSide
		}
		if p.rounds[i].colour != o.rounds[j].colour {
			return o.rounds[j].colour
		}
		i--
		j--
	}
}
