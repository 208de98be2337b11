package archive

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/archive/pgtest"
)

// TestCommitKeepsPeople: a commit that leaves a game's seats and
// observers as the store holds them does not write them again, and every
// commit that changes them (a token, a name, an observer added or gone,
// the case of an address as written) stores exactly what it holds: read
// back from a fresh read, from the game committed (kept by the caller, as
// the referee keeps it), and from a batch that changes the people and
// changes them back.
func TestCommitKeepsPeople(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		g := newGame(t, s)
		require.NoError(t, s.Commit(ctx, &Change{Games: []*Game{g}}))
		check := func(step string, want *Game) {
			t.Helper()
			got, err := s.Game(ctx, want.ID)
			require.NoError(t, err)
			assert.Equal(t, want.Seats, got.Seats, step)
			assert.Equal(t, want.Observers, got.Observers, step)
			assert.Equal(t, want.Version, got.Version, step)
		}
		// the game the caller kept, then games read afresh
		g.Record = "1. a"
		require.NoError(t, s.Commit(ctx, &Change{Games: []*Game{g}}))
		check("a move on the game committed", g)
		steps := []func(g *Game){
			func(g *Game) { g.Record = "1. a b" },
			func(g *Game) { g.Seats[1].Token = "cccc" },
			func(g *Game) { g.Seats[1].Joined = true },
			func(g *Game) {
				g.Observers = append(g.Observers, Observer{Address: Address{Name: "Carol", Addr: "carol@example.org"}, Token: "t1"})
			},
			func(g *Game) { g.Observers[0].Confirmed = true },
			func(g *Game) { g.Seats[0].Player.Name = "Alice B." },
			func(g *Game) { g.Record = "1. a b 2. c" },
			func(g *Game) { g.Observers = nil },
		}
		for i, step := range steps {
			fresh, err := s.Game(ctx, g.ID)
			require.NoError(t, err)
			step(fresh)
			require.NoError(t, s.Commit(ctx, &Change{Games: []*Game{fresh}}))
			check("step "+string(rune('1'+i)), fresh)
		}
		// one batch: an observer added by the first change and gone in
		// the second, made from the first's game (as a batch's view makes
		// it) with its version one higher
		first, err := s.Game(ctx, g.ID)
		require.NoError(t, err)
		first.Observers = []Observer{{Address: Address{Addr: "dave@example.org"}, Token: "t2"}}
		second := *first
		second.Observers = nil
		second.Version++
		require.NoError(t, s.CommitBatch(ctx, []*Change{{MessageID: "b1", Games: []*Game{first}}, {MessageID: "b2", Games: []*Game{&second}}}))
		check("added and gone in one batch", &second)
	})
}

// TestPostgresMoveWritesNoSeats: on PostgreSQL a commit of a move (a game
// read from the store, its record changed) sends no statement about its
// seats or observers; one that changes them sends them.
func TestPostgresMoveWritesNoSeats(t *testing.T) {
	ctx := context.Background()
	rt := &roundTrips{}
	s, err := OpenStore(ctx, pgtest.URL(t), &Options{Now: func() time.Time { return t0 }, tracer: rt})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	g := newGame(t, s)
	require.NoError(t, s.Commit(ctx, &Change{Games: []*Game{g}}))
	people := func() int {
		n := 0
		for _, q := range rt.statements() {
			if strings.Contains(q, "seats") || strings.Contains(q, "observers") {
				n++
			}
		}
		return n
	}
	fresh, err := s.Game(ctx, g.ID)
	require.NoError(t, err)
	fresh.Record = "1. a"
	rt.reset()
	require.NoError(t, s.Commit(ctx, &Change{Games: []*Game{fresh}}))
	assert.Zero(t, people(), "statements about seats in a move: %v", rt.statements())
	fresh.Seats[1].Joined = true
	rt.reset()
	require.NoError(t, s.Commit(ctx, &Change{Games: []*Game{fresh}}))
	assert.Equal(t, 4, people(), "a change of seats: two deletes and an insert a seat: %v", rt.statements())
}
