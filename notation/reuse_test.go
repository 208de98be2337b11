package notation_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"pbem/notation"
)

// A Checker that reuses its games' memory (Reuse) hands each the same
// games, plies and problems as one that does not, batch after batch:
// what a game leaves in reused memory never reaches the next.
func TestCheckerReuseSameGames(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	plies := []string{"t1", "t2", "t3", "p", "t9", "x1", "t1!", "t2 {c}", "(t1)", "$1 t1", "t3 ;c\n"}
	var in strings.Builder
	for n := range 3000 {
		fmt.Fprintf(&in, "[Game \"toy\"]\n[Round \"%d\"]\n\n", n)
		if n%97 == 5 {
			in.WriteString("[Bad\n")
		}
		for i := range rng.IntN(12) {
			if i%2 == 0 {
				fmt.Fprintf(&in, "%d. ", i/2+1)
			}
			in.WriteString(plies[rng.IntN(len(plies))] + " ")
		}
		in.WriteString([]string{"*", "1-0", "0-1", "1/2-1/2"}[rng.IntN(4)] + "\n\n")
	}
	run := func(reuse bool) []string {
		var out []string
		c := &notation.Checker{Lookup: toyLookup, Reuse: reuse, Workers: 2}
		err := c.Run("f.pgn", strings.NewReader(in.String()), func(ch *notation.Checked) {
			s := fmt.Sprintf("game %d valid %v", ch.Index, ch.Valid())
			if ch.Game != nil {
				s += fmt.Sprintf(" plies %d lines %d moves %v outcome %v", ch.Game.Plies, len(ch.Game.Lines), ch.Game.Moves, ch.Game.Outcome)
			}
			if ch.Record != nil {
				for _, p := range ch.Record.Main.Plies {
					s += " " + p.Text + "=" + p.Canon
				}
			}
			for _, p := range ch.Problems {
				s += "\n" + p.String() + "\n" + p.Board
			}
			out = append(out, s)
		})
		require.NoError(t, err)
		return out
	}
	want := run(false)
	require.Greater(t, len(want), 2900)
	require.Equal(t, want, run(true))
}
