// Package score turns the ranks of finished games into points and the
// Sonneborn-Berger tie-break, exactly: points in half points and
// Sonneborn-Berger in quarter points, as integers. It is the one scoring
// of pbem: the archive's crosstables and the referee's tournament
// standings both count with it, so that the two always agree on the games
// they share.
//
// A game scores pairwise: for each other side at it, a side gets 1 for a
// better rank, 1/2 for the same rank and 0 for a worse one (a two-player
// game: win 1, draw 1/2, loss 0; a table of S seats: S minus the rank,
// shared places averaged).
package score

import "strconv"

// Versus is the points (in half points) of a side of rank a against a side
// of rank b of the same game (1 is the best rank): 2, 1 or 0.
func Versus(a, b int) int {
	switch {
	case a < b:
		return 2
	case a == b:
		return 1
	}
	return 0
}

// Result is one pairwise result: A against B, with A's points in half
// points (B got 2 - Points).
type Result struct {
	A, B   string
	Points int
}

// Pairs returns the pairwise results of one game whose sides are players
// with the ranks ranks (the same length), every pair once, in seat order.
// A pair is left out when keep is not nil and says no (an unknown player,
// a player against themselves).
func Pairs(players []string, ranks []int, keep func(a, b string) bool) []Result {
	var rs []Result
	for i, a := range players {
		for j := i + 1; j < len(players); j++ {
			b := players[j]
			if keep != nil && !keep(a, b) {
				continue
			}
			rs = append(rs, Result{a, b, Versus(ranks[i], ranks[j])})
		}
	}
	return rs
}

// Add adds each result's points to both of its players in points.
func Add(points map[string]int, rs []Result) {
	for _, r := range rs {
		points[r.A] += r.Points
		points[r.B] += 2 - r.Points
	}
}

// SonnebornBerger adds to sb, for each result, the points each player
// scored in it times the opponent's points (points in half points, so sb
// is in quarter points).
func SonnebornBerger(sb map[string]int, rs []Result, points map[string]int) {
	for _, r := range rs {
		sb[r.A] += r.Points * points[r.B]
		sb[r.B] += (2 - r.Points) * points[r.A]
	}
}

// Ranks gives the rows of a sorted table their ranks: 1 for the first, and
// a row equal to the one before it (same(i-1, i)) shares its rank
// (1, 2, 2, 4).
func Ranks(n int, same func(i, j int) bool) []int {
	ranks := make([]int, n)
	for i := range ranks {
		ranks[i] = i + 1
		if i > 0 && same(i-1, i) {
			ranks[i] = ranks[i-1]
		}
	}
	return ranks
}

// Half formats half points: 2.5, 3.0.
func Half(h int) string { return strconv.FormatFloat(float64(h)/2, 'f', 1, 64) }

// Quarter formats quarter points: 3.25.
func Quarter(q int) string { return strconv.FormatFloat(float64(q)/4, 'f', 2, 64) }
