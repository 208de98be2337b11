package archive

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cloneGame copies a game as a later change would hold it.
func cloneGame(g *Game) *Game {
	c := *g
	c.Seats = append([]Seat(nil), g.Seats...)
	return &c
}

func TestCommitBatch(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		g := newGame(t, s)

		// Two changes of one game in one batch: the second holds the game at
		// the version the first leaves it.
		g2 := cloneGame(g)
		g2.Version = 1
		g2.Status = Playing
		g2.Record = "1. a1"
		c1 := &Change{MessageID: "m1@x", Games: []*Game{g}, Outbox: []*Outgoing{mail("r1@x", "alice@example.org")}}
		c2 := &Change{MessageID: "m2@x", Games: []*Game{g2}, Outbox: []*Outgoing{mail("r2@x", "bob@example.org")}}
		require.NoError(t, s.CommitBatch(ctx, []*Change{c1, c2}))
		assert.Equal(t, int64(1), g.Version)
		assert.Equal(t, int64(2), g2.Version)
		assert.NotEmpty(t, c1.Outbox[0].ID)
		assert.NotEqual(t, c1.Outbox[0].ID, c2.Outbox[0].ID)
		got, err := s.Game(ctx, g.ID)
		require.NoError(t, err)
		assert.Equal(t, int64(2), got.Version)
		assert.Equal(t, "1. a1", got.Record)
		for _, id := range []string{"m1@x", "m2@x"} {
			seen, err := s.Seen(ctx, id)
			require.NoError(t, err)
			assert.True(t, seen, id)
		}

		tests := []struct {
			name string
			want error
			make func() []*Change
		}{
			{"a duplicate in the batch fails all", ErrDuplicate, func() []*Change {
				g3 := cloneGame(got)
				g3.Record = "1. a1 b1"
				return []*Change{
					{MessageID: "m3@x", Games: []*Game{g3}, Outbox: []*Outgoing{mail("r3@x", "bob@example.org")}},
					{MessageID: "m1@x"},
				}
			}},
			{"a stale version fails all", ErrConflict, func() []*Change {
				g3 := cloneGame(got)
				g3.Record = "1. a1 b1"
				stale := cloneGame(got)
				stale.Version = 1
				return []*Change{
					{MessageID: "m4@x", Outbox: []*Outgoing{mail("r4@x", "bob@example.org")}},
					{MessageID: "m5@x", Games: []*Game{stale}},
				}
			}},
			{"the same message twice in a batch", ErrDuplicate, func() []*Change {
				return []*Change{{MessageID: "m6@x"}, {MessageID: "m6@x"}}
			}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				cs := tt.make()
				var versions []int64
				for _, c := range cs {
					for _, g := range c.Games {
						versions = append(versions, g.Version)
					}
				}
				assert.ErrorIs(t, s.CommitBatch(ctx, cs), tt.want)
				for _, c := range cs {
					if c.MessageID != "m1@x" {
						seen, err := s.Seen(ctx, c.MessageID)
						require.NoError(t, err)
						assert.False(t, seen, "%s marked processed", c.MessageID)
					}
					for _, o := range c.Outbox {
						assert.Empty(t, o.ID, "outbox id set")
					}
					for _, g := range c.Games {
						assert.Equal(t, versions[0], g.Version, "version changed")
						versions = versions[1:]
					}
				}
				var n int
				require.NoError(t, s.DB().QueryRow(`SELECT count(*) FROM outbox`).Scan(&n))
				assert.Equal(t, 2, n, "outbox rows")
				now, err := s.Game(ctx, g.ID)
				require.NoError(t, err)
				assert.Equal(t, int64(2), now.Version)
			})
		}
	})
}

func TestSentBatch(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		c := &Change{MessageID: "m@x", Outbox: []*Outgoing{mail("a@x", "a@example.org"), mail("b@x", "b@example.org"), mail("c@x", "c@example.org")}}
		require.NoError(t, s.Commit(ctx, c))
		missing, err := s.SentBatch(ctx, []string{c.Outbox[0].ID, "999", c.Outbox[2].ID})
		require.NoError(t, err)
		assert.Equal(t, []string{"999"}, missing)
		due, err := s.Due(ctx, t0, 10)
		require.NoError(t, err)
		require.Len(t, due, 1)
		assert.Equal(t, c.Outbox[1].ID, due[0].ID)
	})
}
