package archive

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCrosstable checks the crosstable of clubCup, worked out by hand.
//
// Pairwise results (the rpp game 7, ranked Alice 1, Carol 2, Dan 2, Bob 4,
// gives six): Alice beat Bob (1, 7), Carol (3, 7) and Dan (7), drew with Dan
// (5); Carol beat Dan (2) and Bob (7), drew with Dan (7); Bob beat Dan (4)
// and Carol (6); Dan beat Bob (7). Game 8 is unfinished, 9 of another
// event, 10 against an unknown player: none counts. Scores: Alice 5.5,
// Carol 2.5, Dan 2, Bob 2. Sonneborn-Berger (points times the opponent's
// score): Alice 2x2 (Bob) + 2x2.5 (Carol) + 1.5x2 (Dan) = 12; Carol 1.5x2
// (Dan) + 1x2 (Bob) = 5; Dan 0.5x5.5 + 0.5x2.5 + 1x2 = 6; Bob 1x2 (Dan) +
// 1x2.5 (Carol) = 4.5, so Dan ranks above Bob.
func TestCrosstable(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		s := open(t, where)
		importText(t, s, clubCup)
		xt, err := s.Crosstable(context.Background(), lookup, "club cup", Filter{})
		require.NoError(t, err)
		var text, csv strings.Builder
		require.NoError(t, xt.WriteText(&text))
		assert.Equal(t, `Club Cup: 4 players, 7 games

#  Player  1   2   3   4   Games  Score     SB
1  Alice   X   11  =1  11      4    5.5  12.00
2  Carol   00  X   1=  01      4    2.5   5.00
3  Dan     =0  0=  X   01      4    2.0   6.00
4  Bob     00  10  10  X       4    2.0   4.50
`, text.String())
		require.NoError(t, xt.WriteCSV(&csv))
		assert.Equal(t, `Rank,Player,1,2,3,4,Games,Score,SB
1,Alice,,2.0,1.5,2.0,4,5.5,12.00
2,Carol,0.0,,1.5,1.0,4,2.5,5.00
3,Dan,0.5,0.5,,1.0,4,2.0,6.00
4,Bob,0.0,1.0,1.0,,4,2.0,4.50
`, csv.String())
		assert.Equal(t, "alice@example.org", xt.Players[0].Key)
		assert.Equal(t, "carol", xt.Players[1].Key)
		assert.Equal(t, 5.5, xt.Players[0].Score())
		assert.Equal(t, 4.5, xt.Players[3].TieBreak())

		// The castles games alone: Alice 2.5 (SB 1x2 Bob + 1x1 Carol + 0.5x0.5
		// Dan = 3.25), Bob 2 (1x1 Carol + 1x0.5 Dan = 1.5), Carol 1 (1x0.5 Dan),
		// Dan 0.5 (0.5x2.5 Alice = 1.25).
		xt, err = s.Crosstable(context.Background(), lookup, "Club Cup", Filter{Game: "castles"})
		require.NoError(t, err)
		text.Reset()
		require.NoError(t, xt.WriteText(&text))
		assert.Equal(t, `Club Cup: 4 players, 6 games

#  Player  1  2  3  4  Games  Score    SB
1  Alice   X  1  1  =      3    2.5  3.25
2  Bob     0  X  1  1      3    2.0  1.50
3  Carol   0  0  X  1      3    1.0  0.50
4  Dan     =  0  0  X      3    0.5  1.25
`, text.String())

		// No game: an empty table.
		xt, err = s.Crosstable(context.Background(), lookup, "Nowhere", Filter{})
		require.NoError(t, err)
		assert.Empty(t, xt.Players)
		assert.Zero(t, xt.Games)
	})
}

// TestCrosstableSharedRanks: equal score and tie-break share a rank.
func TestCrosstableSharedRanks(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		s := open(t, where)
		importText(t, s, `[Game "castles"] [Event "Pairs"] [First "Bob"] [Second "Alice"] [Termination "resign"]
0... @c3 0-1

[Game "castles"] [Event "Pairs"] [First "Carol"] [Second "Dan"] [Termination "resign"]
0... @c3 1-0
`)
		xt, err := s.Crosstable(context.Background(), lookup, "Pairs", Filter{})
		require.NoError(t, err)
		var text strings.Builder
		require.NoError(t, xt.WriteText(&text))
		assert.Equal(t, `Pairs: 4 players, 2 games

#  Player  1  2  3  4  Games  Score    SB
1  Alice   X  .  1  .      1    1.0  0.00
1  Carol   .  X  .  1      1    1.0  0.00
3  Bob     0  .  X  .      1    0.0  0.00
3  Dan     .  0  .  X      1    0.0  0.00
`, text.String())
	})
}
