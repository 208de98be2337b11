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
	var prepared int
	for _, n := range []int{1, 50} {
		var ids, addrs []string
		for i := range n {
			ids = append(ids, fmt.Sprintf("m%d@x", i))
			addrs = append(addrs, fmt.Sprintf("p%d@example.org", i), "alice@example.org")
		}
		if n == 1 {
			_, err := s.Prefetch(ctx, ids, addrs, []string{"*"}) // prepares the texts
			require.NoError(t, err)
			prepared = preparedCount(t, s)
		}
		rt.reset()
		p, err := s.Prefetch(ctx, ids, addrs, []string{"*"})
		require.NoError(t, err)
		assert.Len(t, p.Active["alice@example.org"], 2)
		assert.Equal(t, 1, rt.total(), "round trips of a prefetch of %d messages: %v", n, rt.sql)
		assert.Equal(t, 1, rt.batches, "a prefetch is one pipelined batch")
		// The texts do not vary with the number of keys: once the
		// prefetch of one message prepared them, one of 50 prepares none.
		assert.Equal(t, prepared, preparedCount(t, s), "statements prepared, after a prefetch of %d", n)
	}
}

// preparedCount is the number of statements prepared on the store's one
// connection.
func preparedCount(t *testing.T, s *Store) int {
	var n int
	require.NoError(t, s.db.QueryRow(`SELECT count(*) FROM pg_prepared_statements`).Scan(&n))
	return n
}

// TestPrefetchPeople: Prefetch answers Player for the seats and observers
// of the active games, Notes for those games, Blocked and MainAddress for
// the addresses asked, as the store answers them, on both stores; with it
// in the context, the store's Blocked and MainAddress answer from it.
func TestPrefetchPeople(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		ids, addrs := prefetchFixture(t, s)
		g, err := s.ActiveGamesOf(ctx, "carol@example.org")
		require.NoError(t, err)
		require.Len(t, g, 1)
		require.NoError(t, s.Commit(ctx, &Change{MessageID: "m3@x",
			Players: []*Player{{Address: Address{Name: "Olga", Addr: "olga@example.org"}, TZ: "Asia/Tokyo"}},
			Notes: []*Note{{GameID: g[0].ID, Addr: "carol@example.org", At: t0, Ply: 1, Text: "one"},
				{GameID: g[0].ID, Addr: "carol@example.org", At: t0, Ply: 2, Text: "two"},
				{GameID: g[0].ID, Addr: "olga@example.org", At: t0, Ply: 2, Text: "hers"}},
			Blocks:    []*Block{{Pattern: "@blocked.example", Actor: "admin@x", At: t0}, {Pattern: "nobody@example.org", Actor: "admin@x", At: t0}},
			Addresses: &AddressChange{Add: []PlayerAddress{{Address: "alt@example.org", Player: "alice@example.org"}}}}))
		addrs = append(addrs, "Someone@Blocked.example", "alt@example.org")
		p, err := s.Prefetch(ctx, ids, addrs[3:], nil) // olga, nobody, alice, ...: not carol nor bob
		require.NoError(t, err)
		assert.Contains(t, p.People, "carol@example.org")
		assert.Contains(t, p.People, "bob@example.org")
		assert.NotContains(t, p.People, "olga@example.org", "asked: in Players")
		for a, pl := range p.People {
			want, err := s.Player(ctx, a)
			require.NoError(t, err)
			assert.Equal(t, want, pl, a)
		}
		assert.Equal(t, "Asia/Tokyo", p.Players["olga@example.org"].TZ)
		active := p.Active["alice@example.org"]
		require.Len(t, active, 2)
		for _, ag := range active {
			for _, a := range []string{"alice@example.org", "Carol@example.org", "olga@example.org", "bob@example.org"} {
				want, err := s.Notes(ctx, ag.ID, a)
				require.NoError(t, err)
				got, ok := p.NotesOf(ag.ID, a)
				assert.True(t, ok, "the notes of game %d are read", ag.ID)
				assert.Equal(t, want, got, "game %d, %s", ag.ID, a)
			}
		}
		got, _ := p.NotesOf(g[0].ID, "carol@example.org")
		assert.Len(t, got, 2)
		_, ok := p.NotesOf(99999, "carol@example.org")
		assert.False(t, ok, "a game not prefetched")
		for _, a := range addrs[3:] {
			want, err := s.Blocked(ctx, a)
			require.NoError(t, err)
			assert.Equal(t, want, p.Blocked[strings.ToLower(a)], a)
			main, err := s.MainAddress(ctx, a)
			require.NoError(t, err)
			assert.Equal(t, main, p.Main[strings.ToLower(a)], a)
		}
		assert.True(t, p.Blocked["someone@blocked.example"])
		assert.True(t, p.Blocked["nobody@example.org"])
		assert.False(t, p.Blocked["alice@example.org"])
		assert.Equal(t, "alice@example.org", p.Main["alt@example.org"])
	})
}
