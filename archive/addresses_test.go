package archive

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAddressMove: a move takes the seats (tokens with them), watching,
// settings, unsubscriptions and added addresses of a player to the new
// address and moves the versions of the games on (a request that read
// them before conflicts); the old address keeps nothing.
func TestAddressMove(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, fresh(t, where))
		g := newGame(t, s)
		g.Observers = []Observer{{Address: Address{Addr: "alice@example.org"}, Token: "w", Confirmed: true}}
		g2 := newGame(t, s)
		g2.Seats[0].Player.Addr = "carol@example.org"
		g2.Observers = []Observer{{Address: Address{Addr: "alice@example.org"}, Token: "w2", Confirmed: true}}
		alice := &Player{Address: Address{Name: "Alice", Addr: "alice@example.org"}, TZ: "Europe/Paris", Digest: "07:00", Calendar: 3, Mail: MailText}
		require.NoError(t, s.Commit(ctx, &Change{Games: []*Game{g, g2}, Players: []*Player{alice},
			Unsubscribe: []Unsubscription{{Addr: "alice@example.org", Kind: UnsubWatch}},
			Addresses:   &AddressChange{Add: []PlayerAddress{{Address: "alice@work.example", Player: "alice@example.org"}}}}))
		stale := cloneGame(g)

		known, err := s.AddressKnown(ctx, "Alice@Example.org")
		require.NoError(t, err)
		require.True(t, known)
		known, err = s.AddressKnown(ctx, "alice@new.example")
		require.NoError(t, err)
		require.False(t, known)
		main, err := s.MainAddress(ctx, "Alice@Work.example")
		require.NoError(t, err)
		require.Equal(t, "alice@example.org", main)

		require.NoError(t, s.Commit(ctx, &Change{MessageID: "confirm", Addresses: &AddressChange{
			Move: []PlayerAddress{{Address: "alice@example.org", Player: "Alice@New.example"}}}}))

		got, err := s.Game(ctx, g.ID)
		require.NoError(t, err)
		require.Equal(t, "alice@new.example", got.Seats[0].Player.Addr)
		require.Equal(t, "aaaa", got.Seats[0].Token, "the seat's token moves with it")
		require.Equal(t, "alice@new.example", got.Observers[0].Addr)
		require.Greater(t, got.Version, g.Version)
		got2, err := s.Game(ctx, g2.ID)
		require.NoError(t, err)
		require.Equal(t, "alice@new.example", got2.Observers[0].Addr)
		require.True(t, errors.Is(s.Commit(ctx, &Change{MessageID: "late", Games: []*Game{stale}}), ErrConflict),
			"a game read before the move is stored over it")

		p, err := s.Player(ctx, "alice@new.example")
		require.NoError(t, err)
		require.Equal(t, "Europe/Paris", p.TZ)
		require.Equal(t, "07:00", p.Digest)
		require.Equal(t, 3, p.Calendar)
		require.Equal(t, MailText, p.Mail)
		old, err := s.Player(ctx, "alice@example.org")
		require.NoError(t, err)
		require.Zero(t, old.Version, "the old address keeps a player")
		off, err := s.Unsubscribed(ctx, "alice@new.example", UnsubWatch)
		require.NoError(t, err)
		require.True(t, off)
		main, err = s.MainAddress(ctx, "alice@work.example")
		require.NoError(t, err)
		require.Equal(t, "alice@new.example", main)
		games, err := s.ActiveGamesOf(ctx, "alice@example.org")
		require.NoError(t, err)
		require.Empty(t, games)
	})
}

// TestAddressPending: a pending change is found by its code until it
// expires, counted per player, and gone once done.
func TestAddressPending(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, fresh(t, where))
		exp := t0.Add(48 * time.Hour)
		require.NoError(t, s.Commit(ctx, &Change{At: t0, Addresses: &AddressChange{Pending: []*AddressPending{
			{Code: "c1", Player: "alice@example.org", Address: "alice@new.example", Action: AddressMove, Expires: exp},
			{Code: "c2", Player: "alice@example.org", Address: "alice@work.example", Action: AddressAdd, Expires: exp},
		}}}))
		p, err := s.PendingAddress(ctx, "c1", t0)
		require.NoError(t, err)
		require.Equal(t, AddressPending{Code: "c1", Player: "alice@example.org", Address: "alice@new.example", Action: AddressMove, Expires: exp}, *p)
		n, err := s.PendingAddresses(ctx, "Alice@example.org", t0)
		require.NoError(t, err)
		require.Equal(t, 2, n)
		_, err = s.PendingAddress(ctx, "c1", exp)
		require.True(t, errors.Is(err, ErrNotFound), "an expired code is found: %v", err)
		n, err = s.PendingAddresses(ctx, "alice@example.org", exp)
		require.NoError(t, err)
		require.Zero(t, n)
		require.NoError(t, s.Commit(ctx, &Change{At: t0, Addresses: &AddressChange{Done: []string{"c2"}}}))
		_, err = s.PendingAddress(ctx, "c2", t0)
		require.True(t, errors.Is(err, ErrNotFound))
		_, err = s.PendingAddress(ctx, "nope", t0)
		require.True(t, errors.Is(err, ErrNotFound))
	})
}
