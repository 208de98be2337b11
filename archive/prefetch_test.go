package archive

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/archive/pgtest"
)

// prefetchFixture stores two active games and a finished one, a player,
// a rate-limit window and a processed message, and returns the keys to
// prefetch: some stored, some not, in mixed case, with repeats.
func prefetchFixture(t *testing.T, s *Store) (ids, addrs []string) {
	ctx := context.Background()
	g1, g2, done := newGame(t, s), newGame(t, s), newGame(t, s)
	g2.Seats[1].Player.Addr = "carol@example.org"
	g2.Observers = []Observer{{Address{Name: "Olga", Addr: "olga@example.org"}, "tok12345", true}}
	done.Status = Over
	require.NoError(t, s.Commit(ctx, &Change{MessageID: "m1@x", Games: []*Game{g1, g2, done},
		Players: []*Player{{Address: Address{Name: "Alice", Addr: "alice@example.org"}, TZ: "Europe/Paris", Calendar: 2, Digest: "07:30", DigestSent: "2026-12-06"}},
		Senders: []*Sender{{Addr: "alice@example.org", WindowStart: t0, Count: 3}, {Addr: "*", WindowStart: t0, Count: 9}}}))
	return []string{"m1@x", "m2@x", "m1@x"},
		[]string{"Alice@Example.org", "bob@example.org", "carol@example.org", "olga@example.org", "nobody@example.org", "alice@example.org"}
}

// TestPrefetch: Prefetch answers for every key what Seen, Player, Sender
// and ActiveGamesOf answer, on both stores.
func TestPrefetch(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		ids, addrs := prefetchFixture(t, s)
		p, err := s.Prefetch(ctx, ids, addrs, []string{"token:alice@example.org", "*"})
		require.NoError(t, err)
		assert.Len(t, p.Seen, 2)
		assert.Len(t, p.Senders, 7)
		assert.Equal(t, 9, p.Senders["*"].Count)
		assert.Equal(t, &Sender{Addr: "token:alice@example.org"}, p.Senders["token:alice@example.org"])
		for _, id := range ids {
			want, err := s.Seen(ctx, id)
			require.NoError(t, err)
			assert.Equal(t, want, p.Seen[id], id)
		}
		assert.Len(t, p.Players, 5)
		for _, a := range addrs {
			key := strings.ToLower(a)
			pl, err := s.Player(ctx, a)
			require.NoError(t, err)
			assert.Equal(t, pl, p.Players[key], a)
			sd, err := s.Sender(ctx, a)
			require.NoError(t, err)
			assert.Equal(t, sd, p.Senders[key], a)
			gs, err := s.ActiveGamesOf(ctx, a)
			require.NoError(t, err)
			assert.Equal(t, gs, p.Active[key], a)
		}
		assert.Len(t, p.Active["alice@example.org"], 2)
		assert.Len(t, p.Active["olga@example.org"], 1)
		assert.Empty(t, p.Active["nobody@example.org"])
		_, asked := p.Active["nobody@example.org"]
		assert.True(t, asked, "an address without games is answered, not left to the store")
	})
}

// TestPostgresPrefetchRoundTrips holds a batch's prefetch on PostgreSQL
// to four round trips whatever the number of its keys, once its query
// texts are prepared.
func TestPostgresPrefetchRoundTrips(t *testing.T) {
	ctx := context.Background()
	rt := &roundTrips{}
	s, err := OpenStore(ctx, pgtest.URL(t), &Options{Now: func() time.Time { return t0 }, tracer: rt})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	s.db.SetMaxOpenConns(1)
	prefetchFixture(t, s)
	for _, n := range []int{1, 50} {
		var ids, addrs []string
		for i := range n {
			ids = append(ids, fmt.Sprintf("m%d@x", i))
			addrs = append(addrs, fmt.Sprintf("p%d@example.org", i), "alice@example.org")
		}
		_, err := s.Prefetch(ctx, ids, addrs, []string{"*"}) // prepares the texts of this size
		require.NoError(t, err)
		rt.reset()
		p, err := s.Prefetch(ctx, ids, addrs, []string{"*"})
		require.NoError(t, err)
		assert.Len(t, p.Active["alice@example.org"], 2)
		assert.Equal(t, 4, rt.total(), "round trips of a prefetch of %d messages: %v", n, rt.sql)
	}
}
