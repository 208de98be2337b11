package archive

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openClock opens the store at where on the machine's clock (the lease's
// expiry must pass), closed when the test ends.
func openClock(t *testing.T, where string) *Store {
	t.Helper()
	s, err := OpenStore(context.Background(), where, nil)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// TestLeaseTakeover: two stores on one database, as two referee instances
// would hold it. The second takes the lease over once the first's has
// expired; from then on every commit of the first fails with ErrNotLeader
// and writes nothing, its outbox marks included, while the second's go
// through.
func TestLeaseTakeover(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		a, b := openClock(t, where), openClock(t, where)
		const ttl = 400 * time.Millisecond

		ea, ok, err := a.Acquire(ctx, "a", ttl)
		require.NoError(t, err)
		require.True(t, ok, "a takes the free lease")
		_, ok, err = b.Acquire(ctx, "b", ttl)
		require.NoError(t, err)
		assert.False(t, ok, "b cannot take a lease not expired")
		a.Fence(ea)
		b.Fence(0) // a standby
		out := mail("r1", "x@x")
		require.NoError(t, a.Commit(ctx, &Change{MessageID: "m1", Outbox: []*Outgoing{out}}), "the leader commits")
		err = b.Commit(ctx, &Change{MessageID: "m-standby"})
		assert.ErrorIs(t, err, ErrNotLeader, "a standby does not write")
		ok, err = a.Renew(ctx, "a", ea, ttl)
		require.NoError(t, err)
		assert.True(t, ok, "the leader renews")

		time.Sleep(ttl + 100*time.Millisecond)
		eb, ok, err := b.Acquire(ctx, "b", ttl)
		require.NoError(t, err)
		require.True(t, ok, "b takes the expired lease over")
		assert.Equal(t, ea+1, eb, "the epoch moves on")
		b.Fence(eb)
		l, err := b.Leader(ctx)
		require.NoError(t, err)
		assert.Equal(t, "b", l.Holder)
		assert.Equal(t, eb, l.Epoch)

		// The former leader, paused through all this, wakes up.
		ok, err = a.Renew(ctx, "a", ea, ttl)
		require.NoError(t, err)
		assert.False(t, ok, "a's renewal fails")
		g := newGame(t, a)
		err = a.Commit(ctx, &Change{MessageID: "m2", Games: []*Game{g}, Outbox: []*Outgoing{mail("r2", "y@y")}})
		require.ErrorIs(t, err, ErrNotLeader)
		assert.ErrorIs(t, a.Sent(ctx, out.ID), ErrNotLeader, "its outbox marks are refused too")
		_, err = a.SentBatch(ctx, []string{out.ID})
		assert.ErrorIs(t, err, ErrNotLeader)
		assert.ErrorIs(t, a.Retry(ctx, out.ID, time.Now(), "x"), ErrNotLeader)
		_, err = a.Prune(ctx, time.Now())
		assert.ErrorIs(t, err, ErrNotLeader)

		// Nothing of it was written.
		seen, err := b.Seen(ctx, "m2")
		require.NoError(t, err)
		assert.False(t, seen, "the refused commit's message id")
		_, err = b.Game(ctx, g.ID)
		assert.ErrorIs(t, err, ErrNotFound, "the refused commit's game")
		due, err := b.Due(ctx, time.Now().Add(time.Hour), 10)
		require.NoError(t, err)
		require.Len(t, due, 1, "only the first reply is queued, still pending")
		assert.Equal(t, "r1", due[0].MessageID)

		// The new leader writes.
		require.NoError(t, b.Commit(ctx, &Change{MessageID: "m2", Games: []*Game{g}}))
		require.NoError(t, b.Sent(ctx, out.ID))

		// A clean stop gives the lease up at once.
		require.NoError(t, b.Release(ctx, "b", eb))
		ea2, ok, err := a.Acquire(ctx, "a", ttl)
		require.NoError(t, err)
		assert.True(t, ok, "a takes a released lease at once")
		assert.Equal(t, eb+1, ea2)
	})
}

// TestFenceWaitsForCommitInFlight: on PostgreSQL a takeover waits for the
// former leader's commit that checked the fence before it, so that commit
// stands (it was the leader's), and every later one fails.
func TestFenceWaitsForCommitInFlight(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		if !IsPostgresURL(where) {
			t.Skip("SQLite: one process holds the data directory; the takeover is PostgreSQL's")
		}
		ctx := context.Background()
		a, b := openClock(t, where), openClock(t, where)
		const ttl = 300 * time.Millisecond
		ea, ok, err := a.Acquire(ctx, "a", ttl)
		require.NoError(t, err)
		require.True(t, ok)
		a.Fence(ea)

		inside, release := make(chan struct{}), make(chan struct{})
		a.failAt = func(step string) error {
			if step == "processed" {
				close(inside)
				<-release
			}
			return nil
		}
		committed := make(chan error, 1)
		go func() { committed <- a.Commit(ctx, &Change{MessageID: "slow"}) }()
		<-inside
		a.failAt = nil
		time.Sleep(ttl + 100*time.Millisecond) // a's lease expires with its commit in flight

		type result struct {
			epoch int64
			ok    bool
			err   error
		}
		took := make(chan result, 1)
		go func() {
			e, ok, err := b.Acquire(ctx, "b", 10*time.Second)
			took <- result{e, ok, err}
		}()
		select {
		case r := <-took:
			t.Fatalf("the takeover did not wait for the commit in flight: %+v", r)
		case <-time.After(300 * time.Millisecond):
		}
		close(release)
		require.NoError(t, <-committed, "the commit that checked the fence first stands")
		r := <-took
		require.NoError(t, r.err)
		require.True(t, r.ok)
		seen, err := b.Seen(ctx, "slow")
		require.NoError(t, err)
		assert.True(t, seen)
		err = a.Commit(ctx, &Change{MessageID: "late"})
		assert.True(t, errors.Is(err, ErrNotLeader), "the next commit of the former leader: %v", err)
	})
}

// TestStandbyIndexes: a standby's store refuses the referee's writes but
// still indexes the archive for its queries (rows derived from what is
// stored, which any instance may write).
func TestStandbyIndexes(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := openClock(t, where)
		s.Fence(0)
		assert.ErrorIs(t, s.Commit(ctx, &Change{MessageID: "x"}), ErrNotLeader)
		require.NoError(t, s.Reindex(ctx, nil))
		epoch, fenced := s.Fenced()
		assert.True(t, fenced)
		assert.Zero(t, epoch)
	})
}
