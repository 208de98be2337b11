package archive

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutboxDuplicateIsInvalidChange: a change with two mails of one
// Message-ID, or with one that an earlier change queued, can never be
// stored as it is: Commit says so with ErrInvalidChange (not a failure to
// retry), and stores nothing of it.
func TestOutboxDuplicateIsInvalidChange(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		err := s.Commit(ctx, &Change{MessageID: "m1", Outbox: []*Outgoing{mail("a", "x@x"), mail("a", "y@y")}})
		require.ErrorIs(t, err, ErrInvalidChange)
		seen, err := s.Seen(ctx, "m1")
		require.NoError(t, err)
		assert.False(t, seen, "the message was marked processed")
		n, err := s.Pending(ctx)
		require.NoError(t, err)
		assert.Zero(t, n, "mails queued by a refused change")

		require.NoError(t, s.Commit(ctx, &Change{MessageID: "m2", Outbox: []*Outgoing{mail("b", "x@x")}}))
		err = s.Commit(ctx, &Change{MessageID: "m3", Outbox: []*Outgoing{mail("b", "y@y")}})
		require.ErrorIs(t, err, ErrInvalidChange)

		err = s.Commit(ctx, &Change{MessageID: "m4", Outbox: []*Outgoing{{Mail: Mail{MessageID: "c"}}}})
		require.ErrorIs(t, err, ErrInvalidChange, "a mail without a recipient")
	})
}
