package tournament

import (
	"math/rand/v2"
	"testing"
)

// bestMatching is the reference: by exhaustive search over subsets, the
// largest cardinality and, among matchings of that size, the largest weight.
func bestMatching(n int, edges []edge) (card int, weight int64) {
	w := make([][]int64, n)
	ok := make([][]bool, n)
	for i := range n {
		w[i] = make([]int64, n)
		ok[i] = make([]bool, n)
	}
	for _, e := range edges {
		if !ok[e.i][e.j] || e.w > w[e.i][e.j] {
			w[e.i][e.j], w[e.j][e.i] = e.w, e.w
			ok[e.i][e.j], ok[e.j][e.i] = true, true
		}
	}
	type best struct {
		card int
		w    int64
	}
	memo := map[int]best{}
	var solve func(mask int) best
	solve = func(mask int) best {
		if mask == 0 {
			return best{}
		}
		if b, found := memo[mask]; found {
			return b
		}
		i := 0
		for mask&(1<<i) == 0 {
			i++
		}
		rest := mask &^ (1 << i)
		b := solve(rest) // i unmatched
		for j := i + 1; j < n; j++ {
			if rest&(1<<j) != 0 && ok[i][j] {
				s := solve(rest &^ (1 << j))
				s.card++
				s.w += w[i][j]
				if s.card > b.card || s.card == b.card && s.w > b.w {
					b = s
				}
			}
		}
		memo[mask] = b
		return b
	}
	b := solve(1<<n - 1)
	return b.card, b.w
}

// TestMaxWeightMatching compares the blossom algorithm with exhaustive
// search on random graphs, dense and sparse, with small and large weights.
func TestMaxWeightMatching(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 3000 {
		n := 1 + r.IntN(12)
		density := r.Float64()
		maxw := []int64{1, 5, 100, 1 << 40}[r.IntN(4)]
		var edges []edge
		for i := range n {
			for j := i + 1; j < n; j++ {
				if r.Float64() < density {
					edges = append(edges, edge{i, j, 1 + r.Int64N(maxw)})
				}
			}
		}
		mate := maxWeightMatching(n, edges)
		card, weight := 0, int64(0)
		for v, u := range mate {
			if u == -1 {
				continue
			}
			if mate[u] != v {
				t.Fatalf("trial %d: mate[%d] = %d but mate[%d] = %d", trial, v, u, u, mate[u])
			}
			if v < u {
				card++
				found := false
				for _, e := range edges {
					if e.i == v && e.j == u || e.i == u && e.j == v {
						weight += e.w
						found = true
						break
					}
				}
				if !found {
					t.Fatalf("trial %d: matched %d-%d without an edge", trial, v, u)
				}
			}
		}
		wantCard, wantWeight := bestMatching(n, edges)
		if card != wantCard || weight != wantWeight {
			t.Fatalf("trial %d (n=%d, %d edges): matching of %d pairs weighing %d, want %d pairs weighing %d",
				trial, n, len(edges), card, weight, wantCard, wantWeight)
		}
	}
}
