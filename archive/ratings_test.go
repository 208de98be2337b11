package archive

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/notation"
)

const rated = `[Game "castles"] [Date "2026.01.01"] [First "Alice"] [Second "Bob"] [Termination "resign"]
0... @c3 1-0

[Game "castles"] [Date "2026.01.02"] [First "Alice"] [Second "Carol"] [Termination "agreement"]
0... @c3 1/2-1/2

[Game "castles"] [Date "2026.01.03"] [First "Carol"] [Second "Alice"] [Termination "resign"] [Rated "no"]
0... @c3 1-0

[Game "castles"] [Date "2026.01.04"] [First "Carol"] [Second "Bob"]
0... @c3 *

[Game "castles"] [Date "2025.12.31"] [First "Bob"] [Second "Carol"] [Termination "resign"]
0... @c3 1-0

[Game "rpp"] [Date "2026.01.01"] [Players "4"] [R "Alice"] [Y "Bob"] [G "Carol"] [B "Dan"] [Termination "resign"]
1. R:Le1-f2 R>Y=G>B
`

// TestRatings checks Elo figures worked out by hand.
//
// castles, by date (the game of 2025.12.31 was archived last but counts
// first; the unrated and the unfinished games do not count):
//   - Bob 1500 beats Carol 1500: expected 0.5, K 40: Bob 1520, Carol 1480.
//   - Alice 1500 beats Bob 1520: Alice expects 1/(1+10^(20/400)) = 0.471249,
//     so gains 40 x 0.528751 = 21.150: Alice 1521.150, Bob 1498.850.
//   - Alice 1521.150 draws Carol 1480: Alice expects
//     1/(1+10^(-41.150/400)) = 0.558885, so loses 40 x 0.058885 = 2.355:
//     Alice 1518.795, Carol 1482.355.
//
// rpp (its own list): Alice first, Bob and Carol second, Dan last, all at
// 1500: every pair expects 0.5; Alice's mean pairwise result is +0.5
// (1520), Bob's and Carol's 0 (-0.5 + 0 + 0.5: 1500), Dan's -0.5 (1480).
func TestRatings(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		importText(t, s, rated)
		// A referee game that was not rated does not count either.
		notation.CheckFile("x", []byte(`[Game "castles"] [First "Dan"] [Second "Alice"] [Termination "resign"] 0... @c3 1-0`), lookup,
			func(ch *notation.Checked) {
				e := EntryOf(ch.Game, t0)
				e.GameID, e.Rated = 9, false
				require.NoError(t, s.Commit(ctx, &Change{Entries: []*Entry{e}}))
			})

		lists, err := s.Ratings(ctx, lookup, "")
		require.NoError(t, err)
		require.Len(t, lists, 2)
		castles, rpp := lists[0], lists[1]
		assert.Equal(t, "castles", castles.Game)
		assert.Equal(t, 3, castles.Games)
		require.Len(t, castles.Players, 3)
		for i, want := range []struct {
			name   string
			rating float64
		}{{"Alice", 1518.795}, {"Bob", 1498.850}, {"Carol", 1482.355}} {
			assert.Equal(t, want.name, castles.Players[i].Name)
			assert.InDelta(t, want.rating, castles.Players[i].Rating, 0.01, want.name)
			assert.Equal(t, 2, castles.Players[i].Games)
		}
		assert.Equal(t, "rpp", rpp.Game)
		assert.Equal(t, 1, rpp.Games)
		var got []string
		for _, r := range rpp.Players {
			got = append(got, fmt.Sprintf("%s %.3f %d", r.Name, r.Rating, r.Games))
		}
		assert.Equal(t, []string{"Alice 1520.000 1", "Bob 1500.000 1", "Carol 1500.000 1", "Dan 1480.000 1"}, got)

		var text, csv strings.Builder
		require.NoError(t, WriteRatingsText(&text, lists))
		assert.Equal(t, `castles: 3 players, 3 rated games

#  Player  Rating  Games
1  Alice     1519      2
2  Bob       1499      2
3  Carol     1482      2

rpp: 4 players, 1 rated game

#  Player  Rating  Games
1  Alice     1520      1
2  Bob       1500      1
3  Carol     1500      1
4  Dan       1480      1
`, text.String())
		require.NoError(t, WriteRatingsCSV(&csv, lists))
		assert.Equal(t, `Game,Rank,Player,Rating,Games
castles,1,Alice,1518.8,2
castles,2,Bob,1498.8,2
castles,3,Carol,1482.4,2
rpp,1,Alice,1520.0,1
rpp,2,Bob,1500.0,1
rpp,3,Carol,1500.0,1
rpp,4,Dan,1480.0,1
`, csv.String())

		only, err := s.Ratings(ctx, lookup, "rpp")
		require.NoError(t, err)
		require.Len(t, only, 1)
		assert.Equal(t, rpp, only[0])
	})
}

// TestRatingsK: K is 40 for a player's first 10 rated games, 20 after.
func TestRatingsK(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		var b strings.Builder
		for i := range 11 {
			fmt.Fprintf(&b, "[Game \"castles\"] [Date \"2026.02.%02d\"] [First \"Alice\"] [Second \"Bob\"] [Termination \"resign\"] 0... @c3 1-0\n", i+1)
		}
		importText(t, s, b.String())
		var a, bob float64
		for range 10 {
			e := Expected(a+1500, bob+1500)
			a, bob = a+40*(1-e), bob-40*(1-e)
		}
		// After ten wins (by the recurrence above): Alice 1627.989, Bob
		// 1372.011. The eleventh: Alice expects 1/(1+10^(-255.977/400)) =
		// 0.813586 and gains 20 x 0.186414 = 3.728 (not 40 x: 7.457).
		assert.InDelta(t, 1627.989, a+1500, 0.001)
		lists, err := s.Ratings(ctx, lookup, "castles")
		require.NoError(t, err)
		require.Len(t, lists, 1)
		assert.InDelta(t, 1631.717, lists[0].Players[0].Rating, 0.001)
		assert.InDelta(t, 1368.283, lists[0].Players[1].Rating, 0.001)
		assert.Equal(t, 11, lists[0].Players[0].Games)
	})
}

func TestExpected(t *testing.T) {
	assert.Equal(t, 0.5, Expected(1500, 1500))
	assert.InDelta(t, 0.759747, Expected(1700, 1500), 1e-6) // 1/(1+10^-0.5)
	assert.InDelta(t, 1, Expected(1700, 1500)+Expected(1500, 1700), 1e-12)
}

// TestLookAlikeNamesAreOnePlayer (issue 42): "alice" and "аlice" (a
// Cyrillic а) were two players in the ratings and crosstables, though
// the web pages promise that look-alike spellings are one name. Names
// are keyed by their Unicode TR39 skeleton; addresses are not folded.
func TestLookAlikeNamesAreOnePlayer(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		importText(t, s, `[Game "castles"] [Event "Cup"] [Date "2026.01.01"] [First "alice"] [Second "Bob"] [Termination "resign"]
0... @c3 1-0

[Game "castles"] [Event "Cup"] [Date "2026.01.02"] [First "`+"\u0430"+`lice"] [Second "Carol"] [Termination "resign"]
0... @c3 1-0

[Game "castles"] [Event "Cup"] [Date "2026.01.03"] [First "A`+"\u200b"+`LICE"] [Second "Dan"] [Termination "resign"]
0... @c3 1-0

[Game "castles"] [Event "Cup"] [Date "2026.01.04"] [First "Eve <alice@example.org>"] [Second "Fay <`+"\u0430"+`lice@example.org>"] [Termination "resign"]
0... @c3 1-0
`)
		lists, err := s.Ratings(ctx, lookup, "castles")
		require.NoError(t, err)
		require.Len(t, lists, 1)
		var got []string
		for _, r := range lists[0].Players {
			got = append(got, fmt.Sprintf("%d", r.Games))
			if strings.EqualFold(strings.ReplaceAll(r.Name, "\u0430", "a"), "alice") && r.Games != 3 {
				t.Errorf("%q has %d games, want the 3 of alice, аlice and A\u200bLICE", r.Name, r.Games)
			}
		}
		assert.Len(t, lists[0].Players, 6, "players: alice (3 spellings), Bob, Carol, Dan, and the two addresses; games %v", got)
		ct, err := s.Crosstable(ctx, lookup, "Cup", Filter{})
		require.NoError(t, err)
		assert.Len(t, ct.Players, 6, "crosstable rows")
	})
}

// TestRatingsLeaveOutComputerSeats: a seat whose player resigned and whose
// seat the computer played on (leaver=bot) counts for no one's rating;
// the other seats' pairs count as usual.
func TestRatingsLeaveOutComputerSeats(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		importText(t, s, `[Game "rpp"] [Date "2026.01.01"] [Players "3"] [R "Ann"] [Y "Bea `+PlayedByComputer+`"] [G "Cid"] [Termination "resign"]
1. R:La1-b2 R>Y>G
`)
		lists, err := s.Ratings(ctx, lookup, "rpp")
		require.NoError(t, err)
		require.Len(t, lists, 1)
		var names []string
		for _, r := range lists[0].Players {
			names = append(names, r.Name)
		}
		assert.ElementsMatch(t, []string{"Ann", "Cid"}, names, "the computer's seat is left out")
	})
}
