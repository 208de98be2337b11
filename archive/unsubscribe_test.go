package archive

import (
	"context"
	"errors"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUnsubscribeToken: a token names one address (whatever its case)
// and one kind under one secret.
func TestUnsubscribeToken(t *testing.T) {
	a, b := []byte("secret a"), []byte("secret b")
	k := UnsubscribeToken(a, "Carol@Example.org", UnsubWatch)
	require.Equal(t, k, UnsubscribeToken(a, "carol@example.org", UnsubWatch))
	for _, other := range []string{UnsubscribeToken(b, "carol@example.org", UnsubWatch), UnsubscribeToken(a, "dan@example.org", UnsubWatch),
		UnsubscribeToken(a, "carol@example.org", UnsubDigest)} {
		require.NotEqual(t, k, other)
	}
	q, err := url.ParseQuery(UnsubscribeQuery(a, "Carol@Example.org", UnsubWatch))
	require.NoError(t, err)
	require.Equal(t, url.Values{"a": {"carol@example.org"}, "k": {"watch"}, "t": {k}}, q)
}

// TestUnsubscribe: a good token records exactly its kind for exactly its
// address, twice is once; a wrong token, another kind's token or an
// unknown kind changes nothing. An unsubscription committed with a
// Change (the mailto: form) is stored too.
func TestUnsubscribe(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, fresh(t, where))
		secret, err := s.Secret(ctx, UnsubscribeSecretName)
		require.NoError(t, err)
		tok := UnsubscribeToken(secret, "carol@example.org", UnsubWatch)
		for _, bad := range []struct{ addr, kind, tok string }{
			{"carol@example.org", UnsubWatch, altered(tok)},
			{"carol@example.org", UnsubDigest, tok},
			{"dan@example.org", UnsubWatch, tok},
			{"carol@example.org", "everything", UnsubscribeToken(secret, "carol@example.org", "everything")},
			{"carol@example.org", UnsubWatch, ""},
		} {
			err := s.Unsubscribe(ctx, bad.addr, bad.kind, bad.tok)
			require.True(t, errors.Is(err, ErrBadUnsubscribe), "Unsubscribe(%v) = %v, want ErrBadUnsubscribe", bad, err)
		}
		for _, k := range UnsubscribeKinds {
			got, err := s.Unsubscribed(ctx, "carol@example.org", k)
			require.NoError(t, err)
			require.False(t, got, "kind %s unsubscribed by a refused token", k)
		}
		require.NoError(t, s.Unsubscribe(ctx, "Carol@example.org", UnsubWatch, tok))
		require.NoError(t, s.Unsubscribe(ctx, "carol@example.org", UnsubWatch, tok))
		for _, k := range UnsubscribeKinds {
			got, err := s.Unsubscribed(ctx, "carol@example.org", k)
			require.NoError(t, err)
			assert.Equal(t, k == UnsubWatch, got, "kind %s", k)
		}
		got, err := s.Unsubscribed(ctx, "dan@example.org", UnsubWatch)
		require.NoError(t, err)
		require.False(t, got)
		require.NoError(t, s.Commit(ctx, &Change{MessageID: "m", Unsubscribe: []Unsubscription{{Addr: "Dan@example.org", Kind: UnsubDigest}}}))
		got, err = s.Unsubscribed(ctx, "dan@example.org", UnsubDigest)
		require.NoError(t, err)
		require.True(t, got)
	})
}

// TestDigestSettings: a player's digest hour and the day of the last
// digest are kept; DigestPlayers lists only the players who have one.
func TestDigestSettings(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, fresh(t, where))
		carol := &Player{Address: Address{Addr: "carol@example.org"}, Digest: "07:30"}
		dan := &Player{Address: Address{Addr: "dan@example.org"}}
		require.NoError(t, s.Commit(ctx, &Change{Players: []*Player{carol, dan}}))
		carol.DigestSent = "2026-12-07"
		require.NoError(t, s.Commit(ctx, &Change{Players: []*Player{carol}}))
		ps, err := s.DigestPlayers(ctx)
		require.NoError(t, err)
		require.Len(t, ps, 1)
		require.Equal(t, "carol@example.org", ps[0].Address.Addr)
		require.Equal(t, "07:30", ps[0].Digest)
		require.Equal(t, "2026-12-07", ps[0].DigestSent)
	})
}

// TestOutboxKeepsCalendarAndUnsubscribe: a mail's calendar part and its
// List-Unsubscribe come back from the outbox as queued.
func TestOutboxKeepsCalendarAndUnsubscribe(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		a, b := mail("a", "x@x"), mail("b", "y@y")
		a.Calendar = "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n"
		a.Unsubscribe = "<https://pbem.example/unsubscribe?a=x%40x&k=watch&t=T>, <mailto:referee@pbem.example?subject=unsubscribe%20watch%20T>"
		require.NoError(t, s.Commit(ctx, &Change{MessageID: "m", Outbox: []*Outgoing{a, b}}))
		due, err := s.Due(ctx, t0, 10)
		require.NoError(t, err)
		require.Len(t, due, 2)
		for _, o := range due {
			if o.MessageID == a.MessageID {
				assert.Equal(t, a.Calendar, o.Calendar)
				assert.Equal(t, a.Unsubscribe, o.Unsubscribe)
			} else {
				assert.Empty(t, o.Calendar)
				assert.Empty(t, o.Unsubscribe)
			}
		}
	})
}

// altered is tok with its first character changed.
func altered(tok string) string {
	if tok[0] == 'A' {
		return "B" + tok[1:]
	}
	return "A" + tok[1:]
}
