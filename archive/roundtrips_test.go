package archive

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/archive/pgtest"
)

// roundTrips counts what a PostgreSQL store's connections send: queries
// (one round trip each), batches (one round trip for all their
// statements), the statements within batches, and statements prepared.
type roundTrips struct {
	mu                                  sync.Mutex
	queries, batches, batched, prepares int
	sql                                 []string
	batchSQL                            []string // the statements within batches
}

// statements are the texts of every query and batched statement counted.
func (r *roundTrips) statements() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append(append([]string(nil), r.sql...), r.batchSQL...)
}

func (r *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.queries++
	r.sql = append(r.sql, d.SQL)
	return ctx
}

func (r *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (r *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.batches++
	return ctx
}

func (r *roundTrips) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.batched++
	r.batchSQL = append(r.batchSQL, d.SQL)
}

func (r *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

func (r *roundTrips) TracePrepareStart(ctx context.Context, _ *pgx.Conn, _ pgx.TracePrepareStartData) context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prepares++
	return ctx
}

func (r *roundTrips) TracePrepareEnd(context.Context, *pgx.Conn, pgx.TracePrepareEndData) {}

func (r *roundTrips) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.queries, r.batches, r.batched, r.prepares, r.sql, r.batchSQL = 0, 0, 0, 0, nil, nil
}

// total is the round trips counted: every query, batch and prepare.
func (r *roundTrips) total() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.queries + r.batches + r.prepares
}

// TestPostgresCommitRoundTrips holds a batch commit on PostgreSQL to the
// round trips of its design, whatever the batch holds: one pipelined batch
// (BEGIN, the writer lock, the fence check and every statement of every
// change) and its COMMIT; a batch of marks (SentBatch) and a fenced mark
// likewise. Its statements stay prepared: once each has been used, no
// commit prepares one again. A commit whose check fails (a version
// conflict) costs the batch and its ROLLBACK, and stores nothing.
func TestPostgresCommitRoundTrips(t *testing.T) {
	ctx := context.Background()
	rt := &roundTrips{}
	s, err := OpenStore(ctx, pgtest.URL(t), &Options{Now: func() time.Time { return t0 }, tracer: rt})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	s.db.SetMaxOpenConns(1) // one connection: its statement cache is warm after the first batch
	epoch, ok, err := s.Acquire(ctx, "a", time.Minute)
	require.NoError(t, err)
	require.True(t, ok)
	s.Fence(epoch)

	const perBatch = 20
	var games []*Game
	for range perBatch {
		games = append(games, newGame(t, s))
	}
	batch := func(round int) []*Change {
		cs := make([]*Change, len(games))
		for i, g := range games {
			g.Record = fmt.Sprintf("record %d %d", round, i)
			cs[i] = &Change{
				MessageID: fmt.Sprintf("m-%d-%d@x", round, i),
				Games:     []*Game{g},
				Players:   []*Player{{Address: Address{Addr: fmt.Sprintf("p%d-%d@x", round, i)}}},
				Senders:   []*Sender{{Addr: fmt.Sprintf("s%d@x", i), WindowStart: t0, Count: round + 1}},
				Outbox:    []*Outgoing{mail(fmt.Sprintf("o-%d-%d@x", round, i), "a@x"), mail(fmt.Sprintf("c-%d-%d@x", round, i), "b@x")},
				Entries:   []*Entry{{Game: "toy", Result: "1-0", Record: fmt.Sprintf("entry %d %d", round, i)}},
			}
		}
		return cs
	}
	require.NoError(t, s.CommitBatch(ctx, batch(0))) // prepares the statements
	var ids []string
	for round := 1; round <= 2; round++ {
		rt.reset()
		cs := batch(round)
		require.NoError(t, s.CommitBatch(ctx, cs))
		t.Logf("a batch of %d changes: %d statements in %d round trips (queries %v)", len(cs), rt.batched, rt.total(), rt.sql)
		assert.Equal(t, 1, rt.batches, "batches")
		assert.Equal(t, []string{"COMMIT"}, rt.sql, "queries beside the batch")
		assert.Zero(t, rt.prepares, "statements prepared again")
		assert.Greater(t, rt.batched, 7*perBatch, "statements in the batch (a change here: its game, player, sender, two mails, an entry and their indexes; not its seats, which it keeps)")
		for _, c := range cs {
			assert.NotEmpty(t, c.Outbox[0].ID)
			assert.NotZero(t, c.Entries[0].ID)
			ids = append(ids, c.Outbox[0].ID, c.Outbox[1].ID)
		}
	}
	g, err := s.Game(ctx, games[3].ID)
	require.NoError(t, err)
	assert.Equal(t, "record 2 3", g.Record)
	assert.Equal(t, games[3].Version, g.Version)

	require.NoError(t, s.Retry(ctx, ids[0], t0, "x")) // prepares the mark
	rt.reset()
	require.NoError(t, s.Retry(ctx, ids[0], t0, "x"))
	assert.Equal(t, 2, rt.total(), "round trips of a fenced mark: %v", rt.sql)
	require.NoError(t, s.Sent(ctx, ids[0])) // prepares SentBatch's
	rt.reset()
	missing, err := s.SentBatch(ctx, append(ids[1:], "999999"))
	require.NoError(t, err)
	assert.Equal(t, []string{"999999"}, missing)
	assert.Equal(t, 2, rt.total(), "round trips of SentBatch of %d: %v", len(ids), rt.sql)
	assert.Equal(t, 3, rt.batched, "statements of SentBatch of %d: BEGIN, the fence check and one UPDATE", len(ids))
	for _, id := range ids[1:] {
		var status string
		require.NoError(t, s.db.QueryRow(`SELECT status FROM outbox WHERE id = ?`, id).Scan(&status))
		assert.Equal(t, "sent", status, id)
	}
	missing, err = s.SentBatch(ctx, []string{ids[1], "x", ids[1], "999998"})
	require.NoError(t, err)
	assert.Equal(t, []string{"x", "999998"}, missing, "an id that is no number, and one that names no mail")

	// A conflict: the batch, then ROLLBACK; nothing stored.
	rt.reset()
	cs := batch(3)
	cs[perBatch-1].Games[0].Version-- // stale
	assert.ErrorIs(t, s.CommitBatch(ctx, cs), ErrConflict)
	assert.Equal(t, []string{"ROLLBACK"}, rt.sql)
	assert.Equal(t, 1, rt.batches)
	seen, err := s.Seen(ctx, cs[0].MessageID)
	require.NoError(t, err)
	assert.False(t, seen, "the first change of a failed batch was stored")
}
