package archive

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/engine"
)

// transpositions are ziggurat43 games: 1 and 2 reach the same position
// after ply 3 by other move orders, 3 never does, 4 is set up from that
// position and 5 passes through it twice (Gold's Horse leaves and comes
// back).
const transpositions = `[Game "ziggurat43"] [Round "1"]
1. Se3-e4 Si3-h4 2. Sd3-d4 Sh4-g4 *

[Game "ziggurat43"] [Round "2"]
1. Sd3-d4 Si3-h4 2. Se3-e4 Sj3-i4 *

[Game "ziggurat43"] [Round "3"]
1. Sd3-d4 Si3-h4 2. Sd4-e4 *

[Game "ziggurat43"] [Round "4"] [SetUp "1"] [Position "3/SS2s2/S6ss/CCAS3sacc/KCHAS3sahck G"]
1... Sj3-i4 *

[Game "ziggurat43"] [Round "5"]
1. Se3-e4 Si3-h4 2. Sd3-d4 Sh4-g4 3. Sc3-d3 *
`

func searchPositions(t *testing.T, s *Store, f Filter) map[string][]int {
	t.Helper()
	got := map[string][]int{}
	require.NoError(t, s.Query(context.Background(), lookup, f, func(fd *Found) error {
		round, _ := tagValue(fd.Tags, "Round")
		got[round] = fd.Plies
		return nil
	}))
	return got
}

// TestSearchPosition: a search by position finds every game through it,
// by transposition too, with the plies; the index is rebuilt from the
// records (the referee's games are indexed that way).
func TestSearchPosition(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		s := open(t, where)
		importText(t, s, transpositions)
		after, err := AfterPlies(lookup, "ziggurat43", engine.Options{}, "Se3-e4 Si3-h4 Sd3-d4")
		require.NoError(t, err)
		assert.Equal(t, "3/SS2s2/S6ss/CCAS3sacc/KCHAS3sahck G", after)
		other, err := AfterPlies(lookup, "ziggurat43", engine.Options{}, "Sd3-d4 Si3-h4 Se3-e4")
		require.NoError(t, err)
		assert.Equal(t, after, other, "a transposition")
		want := map[string][]int{"1": {3}, "2": {3}, "4": {0}, "5": {3}}
		assert.Equal(t, want, searchPositions(t, s, Filter{Game: "ziggurat43", Position: after}))
		// Any spelling of the text that reads finds the same games.
		assert.Equal(t, want, searchPositions(t, s, Filter{Game: "ziggurat43", Position: "  3/SS2s2/S6ss/CCAS3sacc/KCHAS3sahck   G "}))
		// With another filter too.
		assert.Equal(t, map[string][]int{"5": {3}}, searchPositions(t, s, Filter{Game: "ziggurat43", Position: after, Text: []string{"5"}}))
		start, err := AfterPlies(lookup, "ziggurat43", engine.Options{}, "")
		require.NoError(t, err)
		assert.Equal(t, map[string][]int{"1": {0}, "2": {0}, "3": {0}, "5": {0}}, searchPositions(t, s, Filter{Game: "ziggurat43", Position: start}))

		// Rebuilt from the records.
		_, err = s.db.Exec(`DELETE FROM archive_positions`)
		require.NoError(t, err)
		_, err = s.db.Exec(`INSERT INTO archive_unindexed (entry_id) SELECT id FROM archive`)
		require.NoError(t, err)
		assert.Equal(t, want, searchPositions(t, s, Filter{Game: "ziggurat43", Position: after}))
	})
}

func TestSearchPositionErrors(t *testing.T) {
	for _, tc := range []struct {
		f    Filter
		want string
	}{
		{Filter{Position: "3/7/SSS3sss/CCAS3sacc/KCHAS3sahck R"}, "archive: a position search needs the game; expected a game id with the position"},
		{Filter{Game: "ziggurat43", Position: "3/7/SSS3sss/CCAS3sacc/KCHAS3sahck X"}, `archive: ziggurat43 position, column 35: no side "X"; want R or G`},
		{Filter{Game: "castles", Position: "3/7/SSS3sss/CCAS3sacc/KCHAS3sahck R"}, "archive: castles position, column 36: the text ends after 2 fields, without the Second's heap/supply/points; want 4 fields separated by blanks: cells, First's heap/supply/points, Second's heap/supply/points, side to move"},
	} {
		f := tc.f
		err := f.Check(lookup)
		if assert.Error(t, err) {
			assert.Equal(t, tc.want, err.Error())
		}
	}
	_, err := AfterPlies(lookup, "ziggurat43", engine.Options{}, "Se3-e4 Se4-e5")
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), `archive: ply 2 "Se4-e5": `)
	}
}
