package archive

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
)

// wtx is the writer of a write transaction's statements (a commit, the
// outbox's marks). On SQLite each statement runs at once, within tx, and
// its callback sees its result before the next is written. On PostgreSQL
// the statements are queued, with the transaction's BEGIN, writer lock
// and fence check before them, and sent as one pipelined batch (pgx.Batch:
// one round trip to the server for the whole transaction, plus its
// COMMIT); the callbacks then see the results in the order queued, and the
// first error they return rolls the transaction back. A statement's
// result is therefore never available to the Go code that queues the next
// one: every check (a version, a processed Message-ID) is made on the
// result, in its callback, and whatever a later statement needs from an
// earlier one it reads in SQL.
type wtx struct {
	q pq         // SQLite: run at once, within the transaction
	b *pgx.Batch // PostgreSQL: queued
	// wrap, when set, is applied to the errors of the statements queued
	// from then on (PostgreSQL), as the caller of an immediate statement
	// wraps its error: the change they belong to.
	wrap func(error) error
}

// exec runs (or queues) a statement that returns no rows; fn, when not
// nil, gets the count of rows it changed, or its error, and returns the
// error of the transaction (nil to go on). A nil fn fails the transaction
// on any error of the statement.
func (w *wtx) exec(ctx context.Context, query string, args []any, fn func(n int64, err error) error) error {
	if fn == nil {
		fn = func(_ int64, err error) error { return err }
	}
	if w.b == nil {
		res, err := w.q.ExecContext(ctx, query, args...)
		var n int64
		if err == nil {
			n, err = res.RowsAffected()
		}
		return fn(n, err)
	}
	wrap := w.wrap
	qq := w.b.Queue(pgQuery(query), pgArgs(args)...)
	qq.Fn = func(br pgx.BatchResults) error {
		ct, err := br.Exec()
		return wrapped(wrap, fn(ct.RowsAffected(), err))
	}
	return nil
}

// queryRow runs (or queues) a statement that returns one row; fn scans
// it (scan's error is the statement's, or sql.ErrNoRows) and returns the
// error of the transaction.
func (w *wtx) queryRow(ctx context.Context, query string, args []any, fn func(scan func(dest ...any) error) error) error {
	if w.b == nil {
		return fn(w.q.QueryRowContext(ctx, query, args...).Scan)
	}
	wrap := w.wrap
	qq := w.b.Queue(pgQuery(query), pgArgs(args)...)
	qq.Fn = func(br pgx.BatchResults) error {
		return wrapped(wrap, fn(br.QueryRow().Scan))
	}
	return nil
}

// after runs fn once the statements written so far have run: at once on
// SQLite, after the last queued statement's result on PostgreSQL (within
// the transaction, before its COMMIT). Commit's test hooks (failAt) are
// run this way, so that they see the transaction where its statements
// left it on both stores.
func (w *wtx) after(fn func() error) error {
	if w.b == nil || w.b.Len() == 0 {
		return fn()
	}
	wrap := w.wrap
	last := w.b.QueuedQueries[w.b.Len()-1]
	prev := last.Fn
	last.Fn = func(br pgx.BatchResults) error {
		if prev != nil {
			if err := prev(br); err != nil {
				return err
			}
		} else if _, err := br.Exec(); err != nil {
			return err
		}
		return wrapped(wrap, fn())
	}
	return nil
}

func wrapped(wrap func(error) error, err error) error {
	if err == nil || wrap == nil {
		return err
	}
	return wrap(err)
}

// pgQueries caches the PostgreSQL texts of the queries the pipelined
// transactions queue (rebind): a few dozen constant texts.
var pgQueries sync.Map

func pgQuery(query string) string {
	if q, ok := pgQueries.Load(query); ok {
		return q.(string)
	}
	q := rebind(query)
	pgQueries.Store(query, q)
	return q
}

// pgArgs passes booleans as the integers 0 and 1, as pgConn does for the
// statements that go through database/sql. args is the caller's own slice
// (a literal, or a variadic's), changed in place.
func pgArgs(args []any) []any {
	for i, a := range args {
		if b, ok := a.(bool); ok {
			args[i] = int64(0)
			if b {
				args[i] = int64(1)
			}
		}
	}
	return args
}

// write runs a write transaction of the kind: fill writes its statements
// with the wtx. On SQLite (and on PostgreSQL for txUnfenced, which no hot
// path uses) it is a transaction of database/sql (beginTx) whose
// statements run one by one. On PostgreSQL, BEGIN, the writer lock
// (unless txMarks), the fence check (unless txUnfenced) and every
// statement fill writes go to the server as one pipelined batch; the
// transaction commits when every result was as expected, else rolls back.
// Nothing of it is sent before fill returns, and a fill that fails sends
// nothing.
func (s *Store) write(ctx context.Context, kind txKind, fill func(w *wtx) error) error {
	if !s.pg || kind == txUnfenced {
		tx, err := s.beginTx(ctx, kind)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if err := fill(&wtx{q: s.q(tx)}); err != nil {
			return err
		}
		return tx.Commit()
	}
	want, fenced := s.Fenced()
	if fenced && want == fenceStandby {
		return fmt.Errorf("%w (a standby does not write)", ErrNotLeader)
	}
	b := &pgx.Batch{}
	b.Queue("BEGIN").Fn = execOnly
	if kind != txMarks {
		b.Queue(`SELECT pg_advisory_xact_lock($1)`, int64(writerLock)).Fn = func(br pgx.BatchResults) error {
			if _, err := br.Exec(); err != nil {
				return fmt.Errorf("waiting for the writer lock: %w", err)
			}
			return nil
		}
	}
	if fenced {
		q, args, check := s.fenceQuery(want)
		b.Queue(pgQuery(q), args...).Fn = func(br pgx.BatchResults) error {
			var idle string
			var got int64
			if err := br.QueryRow().Scan(&idle, &got); err != nil {
				return fmt.Errorf("archive: fencing: %w", err)
			}
			return check(got)
		}
	}
	w := &wtx{b: b}
	if err := fill(w); err != nil {
		return err
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var result error // the transaction's error; err is the connection's
	err = conn.Raw(func(dc any) error {
		c := dc.(*pgConn).Conn.Conn()
		if err := c.SendBatch(ctx, b).Close(); err != nil {
			result = err
			if _, rerr := c.Exec(ctx, "ROLLBACK"); rerr != nil {
				c.Close(ctx)
				return driver.ErrBadConn // not back into the pool mid-transaction
			}
			return nil
		}
		ct, err := c.Exec(ctx, "COMMIT")
		if err == nil && ct.String() != "COMMIT" {
			err = errors.New("the transaction was rolled back at its COMMIT")
		}
		if err != nil {
			result = err
			if c.PgConn().TxStatus() != 'I' {
				c.Close(ctx)
				return driver.ErrBadConn
			}
		}
		return nil
	})
	if result != nil {
		return result
	}
	return err
}

// execOnly is the callback of a queued statement whose result is only its
// error.
func execOnly(br pgx.BatchResults) error {
	_, err := br.Exec()
	return err
}
