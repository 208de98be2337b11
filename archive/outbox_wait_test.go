package archive

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNextAttempt(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		_, ok, err := s.NextAttempt(ctx)
		require.NoError(t, err)
		assert.False(t, ok, "empty outbox")

		a, b := mail("a", "x@x"), mail("b", "y@y")
		b.Date = t0.Add(time.Hour)
		require.NoError(t, s.Commit(ctx, &Change{MessageID: "m", Outbox: []*Outgoing{a, b}}))
		at, ok, err := s.NextAttempt(ctx)
		require.NoError(t, err)
		assert.True(t, ok && at.Equal(t0), "NextAttempt = %v %v, want %v", at, ok, t0)

		// a fails and is retried in ten minutes: that is now the earliest.
		require.NoError(t, s.Retry(ctx, a.ID, t0.Add(10*time.Minute), "451 try later"))
		at, ok, _ = s.NextAttempt(ctx)
		assert.True(t, ok && at.Equal(t0.Add(10*time.Minute)), "after a retry: %v", at)

		// Sent and failed mail wait for nothing.
		require.NoError(t, s.Sent(ctx, a.ID))
		at, ok, _ = s.NextAttempt(ctx)
		assert.True(t, ok && at.Equal(b.Date), "after a was sent: %v", at)
		require.NoError(t, s.Failed(ctx, b.ID, "550 no such user"))
		_, ok, _ = s.NextAttempt(ctx)
		assert.False(t, ok, "nothing pending")
	})
}
