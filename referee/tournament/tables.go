package tournament

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
)

// tableSizes returns the table sizes that seat m players: as many tables of
// the normal size (sizes[0]) as possible, the rest at the largest other
// sizes; nil when m cannot be seated exactly.
func tableSizes(m int, sizes []int) []int {
	others := slices.Clone(sizes[1:])
	slices.SortFunc(others, func(a, b int) int { return b - a })
	// fill[k]: can k players be seated at the other sizes, and how (largest first)?
	var fill func(k, from int) []int
	fill = func(k, from int) []int {
		if k == 0 {
			return []int{}
		}
		for i := from; i < len(others); i++ {
			if s := others[i]; s <= k {
				if rest := fill(k-s, i); rest != nil {
					return append([]int{s}, rest...)
				}
			}
		}
		return nil
	}
	for full := m / sizes[0]; full >= 0; full-- {
		if rest := fill(m-full*sizes[0], 0); rest != nil {
			out := make([]int, full, full+len(rest))
			for i := range out {
				out[i] = sizes[0]
			}
			return append(out, rest...)
		}
	}
	return nil
}

// tablesPlayer is a player's data for the Tables draw.
type tablesPlayer struct {
	id    string
	seed  int
	score int
	byes  int
	seats map[int]int // seat -> times sat there
}

// pairTables draws round r of a Tables event.
//
// Seating. With m active (not withdrawn) players, the fewest possible sit
// out (byes) so that the rest can be seated at the allowed sizes, using as
// many tables of the normal size (TableSizes[0]) as possible and the
// largest other sizes for the rest; with the normal size only, m mod size
// players sit out. The byes go to the players with the fewest byes so far,
// then the lowest score, then the lowest seed. A bye scores a table's
// average (seats-1 half points: 1 point at tables of 3), or nothing with
// UnscoredByes.
//
// Draw. Two players at one table meet; the draw minimizes the number of
// pairs seated together that met before (so players meet as many
// different opponents as possible), then the sum over those pairs of the
// square of the number of times they met (so repeats spread out). It is a local search: from random seatings (a generator seeded by
// Seed and the round), players of two tables are swapped while that lowers
// the sum; the best of 16 starts, or the first with no repeat, is kept.
// The same event and Seed always give the same draw.
//
// Seats. At each table, seat 0 (who moves first), then seat 1, and so on
// go to the player who has sat in that seat least often, ties to the
// higher ranked. Tables are numbered by their best ranked player.
func (e *Event) pairTables(r int) (*Round, error) {
	score := e.scores()
	byID := map[string]*tablesPlayer{}
	var field []*tablesPlayer
	for i, p := range e.Players {
		tp := &tablesPlayer{id: p.ID, seed: i, score: score[p.ID], seats: map[int]int{}}
		byID[p.ID] = tp
		if !e.withdrawn(p.ID) {
			field = append(field, tp)
		}
	}
	met := map[[2]string]int{}
	for _, g := range e.Games {
		for i, a := range g.Players {
			byID[a].seats[i]++
			for _, b := range g.Players[i+1:] {
				met[[2]string{a, b}]++
				met[[2]string{b, a}]++
			}
		}
	}
	for _, b := range e.Byes {
		byID[b.Player].byes++
	}
	slices.SortStableFunc(field, func(a, b *tablesPlayer) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.seed, b.seed))
	})
	out := &Round{Number: r}
	var sizes []int
	byes := 0
	for ; byes <= len(field); byes++ {
		if sizes = tableSizes(len(field)-byes, e.TableSizes); sizes != nil {
			break
		}
	}
	if sizes == nil {
		return nil, fmt.Errorf("tournament: %d players cannot be seated at tables of %v", len(field), e.TableSizes)
	}
	rank := map[string]int{}
	for i, p := range field {
		rank[p.id] = i
	}
	byeOrder := slices.Clone(field)
	slices.SortStableFunc(byeOrder, func(a, b *tablesPlayer) int {
		return cmp.Or(cmp.Compare(a.byes, b.byes), cmp.Compare(rank[b.id], rank[a.id]))
	})
	sitting := map[string]bool{}
	for _, p := range byeOrder[:byes] {
		out.Byes = append(out.Byes, p.id)
		sitting[p.id] = true
	}
	var seated []*tablesPlayer
	for _, p := range field {
		if !sitting[p.id] {
			seated = append(seated, p)
		}
	}
	tables := drawTables(seated, sizes, met, e.Seed, r)
	for _, t := range tables {
		slices.SortFunc(t, func(a, b *tablesPlayer) int { return cmp.Compare(rank[a.id], rank[b.id]) })
	}
	slices.SortFunc(tables, func(a, b []*tablesPlayer) int { return cmp.Compare(rank[a[0].id], rank[b[0].id]) })
	for k, t := range tables {
		players := make([]string, 0, len(t))
		left := slices.Clone(t)
		for seat := range t {
			best := 0
			for i, p := range left {
				if p.seats[seat] < left[best].seats[seat] {
					best = i
				}
			}
			players = append(players, left[best].id)
			left = slices.Delete(left, best, best+1)
		}
		out.Games = append(out.Games, Game{Round: r, Board: k + 1, Players: players})
	}
	return out, nil
}

// drawTables seats the players at tables of the given sizes, minimizing the
// pairs seated together that met before, then the sum of the squares of
// their previous meetings.
func drawTables(players []*tablesPlayer, sizes []int, met map[[2]string]int, seed uint64, round int) [][]*tablesPlayer {
	if len(players) == 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(seed, uint64(round)))
	cost := func(t []*tablesPlayer) int {
		c := 0
		for i, a := range t {
			for _, b := range t[i+1:] {
				if m := met[[2]string{a.id, b.id}]; m > 0 {
					c += 1<<20 + m*m
				}
			}
		}
		return c
	}
	split := func(order []*tablesPlayer) [][]*tablesPlayer {
		var ts [][]*tablesPlayer
		at := 0
		for _, s := range sizes {
			ts = append(ts, slices.Clone(order[at:at+s]))
			at += s
		}
		return ts
	}
	var best [][]*tablesPlayer
	bestCost := -1
	for start := 0; start < 16 && bestCost != 0; start++ {
		order := slices.Clone(players)
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		ts := split(order)
		costs := make([]int, len(ts))
		total := 0
		for i, t := range ts {
			costs[i] = cost(t)
			total += costs[i]
		}
		for improved := true; improved; {
			improved = false
			for x := range ts {
				for y := x + 1; y < len(ts); y++ {
					for i := range ts[x] {
						for j := range ts[y] {
							ts[x][i], ts[y][j] = ts[y][j], ts[x][i]
							cx, cy := cost(ts[x]), cost(ts[y])
							if cx+cy < costs[x]+costs[y] {
								total += cx + cy - costs[x] - costs[y]
								costs[x], costs[y] = cx, cy
								improved = true
							} else {
								ts[x][i], ts[y][j] = ts[y][j], ts[x][i]
							}
						}
					}
				}
			}
		}
		if bestCost == -1 || total < bestCost {
			best, bestCost = ts, total
		}
	}
	return best
}
