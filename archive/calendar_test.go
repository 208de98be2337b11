package archive

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCalendarKey: a key depends on the secret, the address (not its
// case) and the generation, and is URL-safe.
func TestCalendarKey(t *testing.T) {
	a, b := []byte("secret a"), []byte("secret b")
	k := CalendarKey(a, "Carol@Example.org", 0)
	require.Equal(t, k, CalendarKey(a, "carol@example.org", 0), "the key depends on the address's case")
	require.Regexp(t, `^[A-Za-z0-9_-]{22}$`, k)
	for _, other := range []string{CalendarKey(b, "carol@example.org", 0), CalendarKey(a, "dan@example.org", 0), CalendarKey(a, "carol@example.org", 1)} {
		require.NotEqual(t, k, other, "two secrets, addresses or generations share a key")
	}
}

// TestCalendarOwner: the player of a key is found, and named by its
// public name; a wrong key, one of another secret or a key of an earlier
// generation finds no one.
func TestCalendarOwner(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, fresh(t, where))
		secret, err := s.Secret(ctx, CalendarSecretName)
		require.NoError(t, err)
		carol := &Player{Address: Address{Name: "Carol", Addr: "carol@example.org"}}
		dan := &Player{Address: Address{Addr: "dan@example.org"}}
		require.NoError(t, s.Commit(ctx, &Change{Players: []*Player{carol, dan}}))
		key := CalendarKey(secret, carol.Address.Addr, 0)
		p, err := s.CalendarOwner(ctx, key)
		require.NoError(t, err)
		require.Equal(t, "carol@example.org", p.Address.Addr)
		require.Equal(t, "Carol", CalendarName(p))
		p, err = s.CalendarOwner(ctx, CalendarKey(secret, "dan@example.org", 0))
		require.NoError(t, err)
		require.Equal(t, "dan", CalendarName(p), "a player without a name is named by the local part of the address")
		altered := key[:21] + map[bool]string{true: "Q", false: "A"}[key[21] == 'A'] // another key, whatever the last character was
		for _, k := range []string{altered, CalendarKey([]byte("another secret"), "carol@example.org", 0), CalendarKey(secret, "eve@example.org", 0), ""} {
			_, err := s.CalendarOwner(ctx, k)
			require.True(t, errors.Is(err, ErrNotFound), "CalendarOwner(%q) = %v, want ErrNotFound", k, err)
		}
		carol, err = s.Player(ctx, "carol@example.org")
		require.NoError(t, err)
		carol.Calendar++
		require.NoError(t, s.Commit(ctx, &Change{Players: []*Player{carol}}))
		_, err = s.CalendarOwner(ctx, key)
		require.True(t, errors.Is(err, ErrNotFound), "a revoked key still works: %v", err)
		p, err = s.CalendarOwner(ctx, CalendarKey(secret, "carol@example.org", 1))
		require.NoError(t, err)
		require.Equal(t, 1, p.Calendar)
	})
}
