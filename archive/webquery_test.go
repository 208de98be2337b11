package archive

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRecentGamesAndChanged(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		var ids []int64
		for i, status := range []string{Playing, Over, Playing, Invited} {
			g := newGame(t, s)
			g.Status = status
			require.NoError(t, s.Commit(ctx, &Change{At: t0.Add(time.Duration(i) * time.Minute), Games: []*Game{g}}))
			ids = append(ids, g.ID)
		}
		gs, err := s.RecentGames(ctx, []string{Playing}, 10)
		require.NoError(t, err)
		require.Len(t, gs, 2)
		assert.Equal(t, []int64{ids[2], ids[0]}, []int64{gs[0].ID, gs[1].ID}, "most recently changed first")
		gs, err = s.RecentGames(ctx, []string{Playing, Invited, Over}, 2)
		require.NoError(t, err)
		assert.Len(t, gs, 2, "limit")
		gs, err = s.RecentGames(ctx, nil, 2)
		require.NoError(t, err)
		assert.Empty(t, gs)

		st, err := s.Changed(ctx, t0.Add(2*time.Minute))
		require.NoError(t, err)
		require.Len(t, st, 2)
		assert.Equal(t, ids[2], st[0].ID)
		assert.Equal(t, ids[3], st[1].ID)
		assert.EqualValues(t, 1, st[0].Version)

		// A second commit of a game moves its version and time.
		g, err := s.Game(ctx, ids[0])
		require.NoError(t, err)
		require.NoError(t, s.Commit(ctx, &Change{At: t0.Add(time.Hour), Games: []*Game{g}}))
		st, err = s.Changed(ctx, t0.Add(time.Hour))
		require.NoError(t, err)
		require.Len(t, st, 1)
		assert.Equal(t, GameStamp{ID: ids[0], Version: 2, Updated: t0.Add(time.Hour)}, st[0])
	})
}

func TestEntry(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		importText(t, s, rated)
		e, err := s.Entry(ctx, 2)
		require.NoError(t, err)
		assert.Equal(t, "castles", e.Game)
		assert.Contains(t, e.Record, `[Second "Carol"]`)
		_, err = s.Entry(ctx, 999)
		assert.ErrorIs(t, err, ErrNotFound)
	})
}

// TestRatingHistories: each player's last point is the rating Ratings
// gives, and the points follow the games by date (see TestRatings for the
// figures worked out by hand).
func TestRatingHistories(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		importText(t, s, rated)
		hs, err := s.RatingHistories(ctx, lookup, Filter{Game: "castles"})
		require.NoError(t, err)
		lists, err := s.Ratings(ctx, lookup, "castles")
		require.NoError(t, err)
		require.Len(t, hs, 3)
		final := map[string]float64{}
		for _, r := range lists[0].Players {
			final[r.Key] = r.Rating
		}
		for _, h := range hs {
			assert.Equal(t, "castles", h.Game)
			require.Len(t, h.Points, 2, h.Name)
			assert.InDelta(t, final[h.Key], h.Points[len(h.Points)-1].Rating, 1e-9, h.Name)
		}
		bob := hs[1]
		assert.Equal(t, "Bob", bob.Name)
		assert.Equal(t, "2025.12.31", bob.Points[0].Date, "the earliest date counts first")
		assert.InDelta(t, 1520, bob.Points[0].Rating, 0.001)
		assert.InDelta(t, 1498.850, bob.Points[1].Rating, 0.01)
	})
}
