package archive

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/engine"
	"pbem/notation"
)

// TestImportDuplicates: a collection imported again with other tags
// archives every game again (its record differs) and reports each as a
// possible duplicate of the game first archived with its moves; a game
// with one ply fewer, or the same plies from another start position, is
// none. pbem archive duplicates' query lists exactly the games with a
// twin, naming it, also after the index is rebuilt (as migration 19 has
// it built for the games archived before it).
func TestImportDuplicates(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		data := corpus(t, 3, 30)
		st, err := s.ImportFile(ctx, "first.pgn", data, lookup, nil)
		require.NoError(t, err)
		require.Equal(t, 15, st.Added)
		assert.Empty(t, st.Duplicates, "random games of the corpus have other moves")

		// The same games under other tags, then one with a ply fewer and
		// one set up from a position with the same first plies.
		again := strings.ReplaceAll(string(data), "[Event \"Corpus ", "[Event \"Copied ")
		require.NotEqual(t, string(data), again)
		var extra bytes.Buffer
		var firstCastles *notation.Game
		notation.CheckFile("x", data, lookup, func(ch *notation.Checked) {
			if firstCastles == nil && ch.Game.Codec.Rules().ID() == "castles" {
				firstCastles = ch.Game
			}
		})
		require.NotNil(t, firstCastles)
		require.Greater(t, firstCastles.Plies, MinDuplicatePlies+2, "long enough that the game with a ply fewer and the one set up after ply 2 count")
		short, err := notation.NewBuilder(firstCastles.Codec, engine.Options{}, []notation.Tag{{Name: "Event", Value: "Short"}})
		require.NoError(t, err)
		for _, m := range firstCastles.Moves[:len(firstCastles.Moves)-1] {
			require.NoError(t, short.Play(m))
		}
		require.NoError(t, notation.Write(&extra, short.Game()))
		// From the position after ply 2, the plies 3 on: the same plies as
		// no archived game from its start.
		pos := firstCastles.Lines[2].State().(engine.Positioner).Position()
		set, err := notation.NewBuilder(firstCastles.Codec, engine.Options{}, []notation.Tag{{Name: "SetUp", Value: "1"}, {Name: "Position", Value: pos}})
		require.NoError(t, err)
		for _, m := range firstCastles.Moves[2:] {
			require.NoError(t, set.Play(m))
		}
		require.NoError(t, notation.Write(&extra, set.Game()))
		st, err = s.ImportFile(ctx, "again.pgn", []byte(again+extra.String()), lookup, nil)
		require.NoError(t, err)
		assert.Equal(t, 17, st.Added, "the copies differ by their tags: all are archived")
		require.Len(t, st.Duplicates, 15, "%+v", st.Duplicates)
		for i, d := range st.Duplicates {
			assert.Equal(t, Duplicate{ID: int64(16 + i), Of: int64(1 + i), File: "again.pgn", Index: i + 1}, d)
		}

		want := map[int64][]int64{}
		for i := int64(1); i <= 15; i++ {
			want[i], want[i+15] = []int64{i + 15}, []int64{i}
		}
		listed := func() map[int64][]int64 {
			got := map[int64][]int64{}
			require.NoError(t, s.Query(ctx, lookup, Filter{Duplicates: true}, func(fd *Found) error {
				got[fd.ID] = fd.Same
				return nil
			}))
			return got
		}
		assert.Equal(t, want, listed())

		// Rebuilt from the records, as for the games archived before
		// migration 19.
		_, err = s.db.ExecContext(ctx, `DELETE FROM archive_lines`)
		require.NoError(t, err)
		assert.Empty(t, listed())
		_, err = s.db.ExecContext(ctx, `INSERT INTO archive_unindexed (entry_id) SELECT id FROM archive`)
		require.NoError(t, err)
		assert.Equal(t, want, listed())

		got := map[int64][]int64{}
		require.NoError(t, s.Query(ctx, lookup, Filter{Duplicates: true, Game: "castles"}, func(fd *Found) error {
			got[fd.ID] = fd.Same
			return nil
		}))
		assert.Equal(t, map[int64][]int64{1: {16}, 2: {17}, 3: {18}, 16: {1}, 17: {2}, 18: {3}}, got, "the filter's other conditions hold")
	})
}

// TestImportDuplicateOfRefereeGame: a game the referee archived (indexed
// only by the next query) is found as the twin of an imported copy.
func TestImportDuplicateOfRefereeGame(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		c, err := lookup("castles")
		require.NoError(t, err)
		g := randomGame(t, c, engine.Options{}, 44, 3, 20, []notation.Tag{{Name: "Event", Value: "pbem game #7"}})
		require.GreaterOrEqual(t, g.Plies, MinDuplicatePlies)
		e := EntryOf(g, t0)
		e.GameID, e.positions = 7, nil // as the referee archives it
		var id int64
		require.NoError(t, s.write(ctx, txWrite, func(w *wtx) error { return putEntry(ctx, w, e, t0, &id) }))

		var copied bytes.Buffer
		g.Record.SetTag("Event", "Copied")
		require.NoError(t, notation.Write(&copied, g))
		st, err := s.ImportFile(ctx, "copy.pgn", copied.Bytes(), lookup, nil)
		require.NoError(t, err)
		require.Equal(t, 1, st.Added)
		require.Len(t, st.Duplicates, 1, "the referee's game is not found")
		assert.Equal(t, []Duplicate{{ID: st.Duplicates[0].ID, Of: id, File: "copy.pgn", Index: 1}}, st.Duplicates)
	})
}
