package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/archive"
	"pbem/archive/pgtest"
)

// TestElector runs two electors in this process on one PostgreSQL store,
// with a short lease: one leads and writes, fenced by its epoch, while
// the other stands by; a leader that stops cleanly gives the lease up and
// the other leads at once; a leader that loses its database stands down
// and the other leads once the lease has run out.
func TestElector(t *testing.T) {
	url := pgtest.Start(t).URL(t)
	ctx := context.Background()
	const ttl, retry = 2 * time.Second, 50 * time.Millisecond
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	type event struct {
		who, what string
		epoch     int64
		err       error
	}
	events := make(chan event, 32)
	open := func() *archive.Store {
		s, err := archive.OpenStore(ctx, url, nil)
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		s.Fence(0)
		return s
	}
	// lead is a leader's work: one commit, then wait for the end.
	lead := func(who string, s *archive.Store, e *elector) func(work, leading context.Context) {
		return func(work, leading context.Context) {
			epoch := e.epoch.Load()
			err := s.Commit(ctx, &archive.Change{MessageID: fmt.Sprintf("%s-%d", who, epoch)})
			events <- event{who, "leads", epoch, err}
			select {
			case <-work.Done():
				events <- event{who, "stopped", epoch, nil}
			case <-leading.Done():
				events <- event{who, "lost", epoch, nil}
			}
		}
	}
	next := func(want string) event {
		t.Helper()
		select {
		case ev := <-events:
			require.Equal(t, want, ev.who+" "+ev.what, "event %+v", ev)
			return ev
		case <-time.After(3 * ttl):
			t.Fatalf("no event (waiting for %q)", want)
		}
		return event{}
	}
	elector := func(s *archive.Store) *elector {
		e := newElector(s, log)
		e.ttl, e.retry = ttl, retry
		return e
	}

	sa, sb := open(), open()
	ea, eb := elector(sa), elector(sb)
	workA, stopA := context.WithCancel(ctx)
	doneA := make(chan struct{})
	go func() { defer close(doneA); ea.run(workA, lead("a", sa, ea)) }()
	ev := next("a leads")
	require.NoError(t, ev.err, "the leader writes")
	workB, stopB := context.WithCancel(ctx)
	defer stopB()
	doneB := make(chan struct{})
	go func() { defer close(doneB); eb.run(workB, lead("b", sb, eb)) }()
	select {
	case ev := <-events:
		t.Fatalf("%+v while a renews its lease", ev)
	case <-time.After(2 * ttl):
	}
	assert.True(t, ea.leading.Load())
	assert.False(t, eb.leading.Load())
	assert.ErrorIs(t, sb.Commit(ctx, &archive.Change{MessageID: "standby"}), archive.ErrNotLeader, "a standby writes nothing")

	// A clean stop: a gives the lease up once its work has ended, and b
	// leads at once, not when the lease would have run out.
	stopped := time.Now()
	stopA()
	next("a stopped")
	<-doneA
	ev = next("b leads")
	require.NoError(t, ev.err)
	assert.Less(t, time.Since(stopped), ttl/2, "b took the released lease at once")
	assert.ErrorIs(t, sa.Commit(ctx, &archive.Change{MessageID: "a-after"}), archive.ErrNotLeader)

	// a comes back as a standby; b loses its database.
	sa2 := open()
	ea2 := elector(sa2)
	workA2, stopA2 := context.WithCancel(ctx)
	defer stopA2()
	go ea2.run(workA2, lead("a", sa2, ea2))
	time.Sleep(ttl / 2)
	cut := time.Now()
	require.NoError(t, sb.DB().Close())
	next("b lost")
	assert.Less(t, time.Since(cut), ttl, "b stands down at its next renewal")
	epoch, fenced := sb.Fenced()
	assert.True(t, fenced)
	assert.Zero(t, epoch, "b is a standby: it writes nothing")
	ev = next("a leads")
	require.NoError(t, ev.err)
	took := time.Since(cut)
	assert.Less(t, took, ttl+time.Second, "a takes over once b's lease has run out")
	assert.Greater(t, ev.epoch, eb.epoch.Load(), "the epoch moved on")
	t.Logf("takeover %v after b lost its database (lease %v)", took.Round(time.Millisecond), ttl)

	// Someone else moved the epoch on (a leader whose clock ran slow
	// would see it so): a's next write is refused, and a stands down at
	// once instead of at its next renewal.
	_, err := sa2.DB().Exec(`UPDATE leader SET epoch = epoch + 1, holder = 'someone else'`)
	require.NoError(t, err)
	err = sa2.Commit(ctx, &archive.Change{MessageID: "a-refused"})
	require.ErrorIs(t, err, archive.ErrNotLeader)
	refusedAt := time.Now()
	(&server{elect: ea2}).refused(err)
	next("a lost")
	assert.Less(t, time.Since(refusedAt), ttl/3, "a stands down at the refusal, not at its next renewal")
	assert.False(t, ea2.leading.Load())
}
