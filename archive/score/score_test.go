package score

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestVersusAndPairs(t *testing.T) {
	assert.Equal(t, 2, Versus(1, 2))
	assert.Equal(t, 1, Versus(2, 2))
	assert.Equal(t, 0, Versus(3, 1))
	// A table of three: G first, R and B share second.
	rs := Pairs([]string{"R", "G", "B"}, []int{2, 1, 2}, nil)
	assert.Equal(t, []Result{{"R", "G", 0}, {"R", "B", 1}, {"G", "B", 2}}, rs)
	pts := map[string]int{}
	Add(pts, rs)
	// S minus the rank, shared places averaged: G 2, R and B 1/2 each.
	assert.Equal(t, map[string]int{"G": 4, "R": 1, "B": 1}, pts)
	kept := Pairs([]string{"a", "", "a"}, []int{1, 2, 3}, func(a, b string) bool { return a != "" && b != "" && a != b })
	assert.Empty(t, kept)
}

// TestSonnebornBerger: a round robin of three, a beats b, b beats c, a
// and c draw: a 1.5 (SB 1*1 + 0.5*0.5 = 1.25), b 1 (SB 1*0.5 = 0.5),
// c 0.5 (SB 0.5*1.5 = 0.75).
func TestSonnebornBerger(t *testing.T) {
	rs := []Result{{"a", "b", 2}, {"b", "c", 2}, {"a", "c", 1}}
	pts := map[string]int{}
	Add(pts, rs)
	sb := map[string]int{}
	SonnebornBerger(sb, rs, pts)
	assert.Equal(t, "1.5 1.25", Half(pts["a"])+" "+Quarter(sb["a"]))
	assert.Equal(t, "1.0 0.50", Half(pts["b"])+" "+Quarter(sb["b"]))
	assert.Equal(t, "0.5 0.75", Half(pts["c"])+" "+Quarter(sb["c"]))
}

func TestRanks(t *testing.T) {
	v := []int{5, 4, 4, 1}
	assert.Equal(t, []int{1, 2, 2, 4}, Ranks(len(v), func(i, j int) bool { return v[i] == v[j] }))
	assert.Empty(t, Ranks(0, nil))
}
