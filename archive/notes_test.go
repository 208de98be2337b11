package archive

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNotes: notes are stored with the change that writes them, read back
// per owner and game in the order written, and a change that fails stores
// none of its notes.
func TestNotes(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		g := newGame(t, s)
		require.NoError(t, s.Commit(ctx, &Change{MessageID: "m1@x", Games: []*Game{g}, Notes: []*Note{
			{GameID: g.ID, Addr: "Alice@Example.org", Text: "first"},
			{GameID: g.ID, Addr: "bob@example.org", Text: "bob's"},
		}}))
		require.NoError(t, s.Commit(ctx, &Change{MessageID: "m2@x", Notes: []*Note{
			{GameID: g.ID, Addr: "alice@example.org", Ply: 3, Text: "second\nof two lines"},
		}}))
		texts := func(addr string) []string {
			ns, err := s.Notes(ctx, g.ID, addr)
			require.NoError(t, err)
			var out []string
			for _, n := range ns {
				assert.Equal(t, t0, n.At)
				out = append(out, n.Text)
			}
			return out
		}
		assert.Equal(t, []string{"first", "second\nof two lines"}, texts("ALICE@example.org"))
		assert.Equal(t, []string{"bob's"}, texts("bob@example.org"))
		assert.Empty(t, texts("carol@example.org"))
		ns, err := s.Notes(ctx, g.ID, "alice@example.org")
		require.NoError(t, err)
		assert.Equal(t, []int{0, 3}, []int{ns[0].Ply, ns[1].Ply})

		// A duplicate request stores nothing, its note neither.
		err = s.Commit(ctx, &Change{MessageID: "m2@x", Notes: []*Note{{GameID: g.ID, Addr: "alice@example.org", Text: "again"}}})
		require.ErrorIs(t, err, ErrDuplicate)
		assert.Len(t, texts("alice@example.org"), 2)
	})
}

// TestAnalysesQueue: an analysis is queued with its request, listed until
// finished, finished once (a second finish conflicts), and listed for
// whoever asked.
func TestAnalysesQueue(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		g := newGame(t, s)
		a := &Analysis{GameID: g.ID, Addr: "Alice@Example.org", Name: "Alice", Level: 3, Side: -1}
		b := &Analysis{GameID: g.ID, Addr: "bob@example.org", Level: 4, Side: 1}
		require.NoError(t, s.Commit(ctx, &Change{Games: []*Game{g}, Analyses: []*Analysis{a, b}}))
		require.NotZero(t, a.ID)
		q, err := s.QueuedAnalyses(ctx, 10)
		require.NoError(t, err)
		require.Len(t, q, 2)
		assert.Equal(t, []int64{a.ID, b.ID}, []int64{q[0].ID, q[1].ID})
		assert.Equal(t, "alice@example.org", q[0].Addr)
		assert.Equal(t, 3, q[0].Level)
		assert.Equal(t, []int{-1, 1}, []int{q[0].Side, q[1].Side})
		assert.Equal(t, AnalysisQueued, q[0].Status)

		done := *q[0]
		done.Status, done.Text = AnalysisDone, "[Game \"toy\"] *"
		require.NoError(t, s.Commit(ctx, &Change{Analyses: []*Analysis{&done}}))
		again := done
		require.ErrorIs(t, s.Commit(ctx, &Change{Analyses: []*Analysis{&again}}), ErrConflict)
		q, err = s.QueuedAnalyses(ctx, 10)
		require.NoError(t, err)
		require.Len(t, q, 1)
		assert.Equal(t, b.ID, q[0].ID)
		mine, err := s.AnalysesOf(ctx, "ALICE@example.org")
		require.NoError(t, err)
		require.Len(t, mine, 1)
		assert.Equal(t, AnalysisDone, mine[0].Status)
		assert.Equal(t, done.Text, mine[0].Text)
		assert.False(t, mine[0].Published)

		// Published: the game's page shows it; a queued one cannot be.
		_, err = s.PublishedAnalysis(ctx, g.ID)
		require.ErrorIs(t, err, ErrNotFound)
		pub := *mine[0]
		pub.Published, pub.Text = true, "public text"
		require.NoError(t, s.Commit(ctx, &Change{Analyses: []*Analysis{&pub}}))
		got, err := s.PublishedAnalysis(ctx, g.ID)
		require.NoError(t, err)
		assert.Equal(t, "public text", got.Text)
		early := *q[0]
		early.Published = true
		require.ErrorIs(t, s.Commit(ctx, &Change{Analyses: []*Analysis{&early}}), ErrConflict)
	})
}
