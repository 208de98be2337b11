package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// ErrNotLeader is returned by a write of a fenced Store (Fence) whose
// epoch is no longer the lease's, or of a Store fenced as a standby:
// nothing was written. It is temporary: the instance that gets it has lost
// the leadership, and whoever leads now does the work again.
var ErrNotLeader = errors.New("archive: not the leader")

// leaderSchema is migration 11 on SQLite: the lease, one row.
const leaderSchema = `
CREATE TABLE leader (
	id      INTEGER PRIMARY KEY CHECK (id = 1),
	holder  TEXT    NOT NULL DEFAULT '',
	epoch   INTEGER NOT NULL DEFAULT 0,
	expires INTEGER NOT NULL DEFAULT 0
);
INSERT INTO leader (id) VALUES (1);
`

// pgLeaderSchema is migration 11 on PostgreSQL: expires is a time of the
// database's clock.
const pgLeaderSchema = `
CREATE TABLE leader (
	id      BIGINT PRIMARY KEY CHECK (id = 1),
	holder  TEXT COLLATE "C" NOT NULL DEFAULT '',
	epoch   BIGINT NOT NULL DEFAULT 0,
	expires TIMESTAMPTZ NOT NULL DEFAULT '-infinity'
);
INSERT INTO leader (id) VALUES (1);
`

// fenceIdle is how long a fenced transaction may wait for its client
// (idle_in_transaction_session_timeout, PostgreSQL): a leader cut off from
// the database in the middle of a transaction would otherwise hold the
// writer lock and the lease's row, and keep its successor waiting until
// the server noticed the dead connection. A leader's transactions run
// their statements back to back.
const fenceIdle = 5 * time.Second

// Lease is the leadership lease as stored.
type Lease struct {
	Holder  string
	Epoch   int64
	Expires time.Time // by the database's clock (SQLite: the Store's)
}

// fenceOff is the fence of a Store that does not check the lease (the
// default); fenceStandby refuses every write.
const (
	fenceOff     = -1
	fenceStandby = 0
)

// Fence makes every later write transaction of the Store check, within the
// transaction, that the lease's epoch is epoch, and fail with ErrNotLeader
// when it is not. Epoch 0 (a standby) fails every write at once. A Store
// is not fenced until Fence is called.
func (s *Store) Fence(epoch int64) {
	if epoch < 0 {
		epoch = fenceStandby
	}
	s.fence.Store(epoch + 1)
}

// Fenced reports the epoch the Store's writes are fenced at (0: a
// standby's, refused), and whether they are fenced at all.
func (s *Store) Fenced() (epoch int64, fenced bool) {
	f := s.fence.Load() - 1
	return max(f, 0), f != fenceOff
}

// checkFence is the fencing check of a write transaction, run after its
// writer lock: nil when the Store is not fenced or the lease's epoch is
// the Store's.
func (s *Store) checkFence(ctx context.Context, tx *sql.Tx) error {
	want, fenced := s.Fenced()
	if !fenced {
		return nil
	}
	if want == fenceStandby {
		return fmt.Errorf("%w (a standby does not write)", ErrNotLeader)
	}
	if s.pg {
		query, args, check := s.fenceQuery(want)
		var idle string
		var got int64
		if err := s.q(tx).QueryRowContext(ctx, query, args...).Scan(&idle, &got); err != nil {
			return fmt.Errorf("archive: fencing: %w", err)
		}
		return check(got)
	}
	var got int64
	if err := s.q(tx).QueryRowContext(ctx, `SELECT epoch FROM leader WHERE id = 1`).Scan(&got); err != nil {
		return fmt.Errorf("archive: fencing: %w", err)
	}
	if got != want {
		return fmt.Errorf("%w (epoch %d; the lease is at %d)", ErrNotLeader, want, got)
	}
	return nil
}

// fenceQuery is the fencing check on PostgreSQL: the query, which returns
// a text to skip and the lease's epoch, its arguments, and the check of
// the epoch it returns. FOR SHARE: a takeover's UPDATE of the row waits
// for this transaction. set_config(..., true) is SET LOCAL, in the same
// statement.
func (s *Store) fenceQuery(want int64) (query string, args []any, check func(got int64) error) {
	return `SELECT set_config('idle_in_transaction_session_timeout', ?, true), epoch
FROM leader WHERE id = 1 FOR SHARE`, []any{strconv.FormatInt(fenceIdle.Milliseconds(), 10)}, func(got int64) error {
			if got != want {
				return fmt.Errorf("%w (epoch %d; the lease is at %d)", ErrNotLeader, want, got)
			}
			return nil
		}
}

// Acquire makes holder the leader for ttl, by the database's clock, when
// the lease has expired or is holder's already, and raises its epoch: the
// writes of any earlier term, holder's own included, are fenced off. ok is
// false, with no error, when another holds a lease not yet expired.
func (s *Store) Acquire(ctx context.Context, holder string, ttl time.Duration) (epoch int64, ok bool, err error) {
	if s.pg {
		err = s.db.QueryRowContext(ctx, `UPDATE leader SET holder = ?, epoch = epoch + 1,
	expires = now() + ?::bigint * interval '1 microsecond'
WHERE id = 1 AND (expires < now() OR holder = ?) RETURNING epoch`, holder, ttl.Microseconds(), holder).Scan(&epoch)
	} else {
		now := s.now()
		err = s.db.QueryRowContext(ctx, `UPDATE leader SET holder = ?, epoch = epoch + 1, expires = ?
WHERE id = 1 AND (expires < ? OR holder = ?) RETURNING epoch`, holder, unix(now.Add(ttl)), unix(now), holder).Scan(&epoch)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("archive: acquire the lease: %w", err)
	}
	return epoch, true, nil
}

// Renew extends holder's lease at epoch to ttl from now, by the database's
// clock. ok is false, with no error, when the lease is no longer holder's
// at epoch (another took it over).
func (s *Store) Renew(ctx context.Context, holder string, epoch int64, ttl time.Duration) (ok bool, err error) {
	var res sql.Result
	if s.pg {
		res, err = s.db.ExecContext(ctx, `UPDATE leader SET expires = now() + ?::bigint * interval '1 microsecond'
WHERE id = 1 AND holder = ? AND epoch = ?`, ttl.Microseconds(), holder, epoch)
	} else {
		res, err = s.db.ExecContext(ctx, `UPDATE leader SET expires = ? WHERE id = 1 AND holder = ? AND epoch = ?`,
			unix(s.now().Add(ttl)), holder, epoch)
	}
	if err != nil {
		return false, fmt.Errorf("archive: renew the lease: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("archive: renew the lease: %w", err)
	}
	return n == 1, nil
}

// Release gives up holder's lease at epoch (it expires at once), so that
// a standby takes over without waiting for it to run out: for a leader
// that stops cleanly, its work done.
func (s *Store) Release(ctx context.Context, holder string, epoch int64) error {
	q := `UPDATE leader SET expires = '-infinity' WHERE id = 1 AND holder = ? AND epoch = ?`
	if !s.pg {
		q = `UPDATE leader SET expires = 0 WHERE id = 1 AND holder = ? AND epoch = ?`
	}
	if _, err := s.db.ExecContext(ctx, q, holder, epoch); err != nil {
		return fmt.Errorf("archive: release the lease: %w", err)
	}
	return nil
}

// Leader returns the lease as stored.
func (s *Store) Leader(ctx context.Context) (Lease, error) {
	var l Lease
	var err error
	if s.pg {
		var exp sql.NullTime
		err = s.db.QueryRowContext(ctx, `SELECT holder, epoch, CASE WHEN expires = '-infinity' THEN NULL ELSE expires END
FROM leader WHERE id = 1`).Scan(&l.Holder, &l.Epoch, &exp)
		if exp.Valid {
			l.Expires = exp.Time.UTC()
		}
	} else {
		var exp int64
		err = s.db.QueryRowContext(ctx, `SELECT holder, epoch, expires FROM leader WHERE id = 1`).Scan(&l.Holder, &l.Epoch, &exp)
		l.Expires = fromUnix(exp)
	}
	if err != nil {
		return Lease{}, fmt.Errorf("archive: the lease: %w", err)
	}
	return l, nil
}

// PendingMessageIDs returns the Message-IDs of the replies waiting for
// delivery, by outbox id, at most limit of them, oldest first. A new
// leader looks them up among the copies in its mailbox: the former leader
// may have sent some of them without recording it.
func (s *Store) PendingMessageIDs(ctx context.Context, limit int) (map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, message_id FROM outbox WHERE status = 'pending' ORDER BY id LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("archive: pending: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id int64
		var mid string
		if err := rows.Scan(&id, &mid); err != nil {
			return nil, fmt.Errorf("archive: pending: %w", err)
		}
		out[strconv.FormatInt(id, 10)] = mid
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("archive: pending: %w", err)
	}
	return out, nil
}

// SentMessageIDs reports which of the Message-IDs are of replies recorded
// as sent (by this instance or another).
func (s *Store) SentMessageIDs(ctx context.Context, messageIDs []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, mid := range messageIDs {
		var n int
		err := s.q(nil).QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox WHERE message_id = ? AND status = 'sent'`, mid).Scan(&n)
		if err != nil {
			return nil, fmt.Errorf("archive: sent: %w", err)
		}
		if n > 0 {
			out[mid] = true
		}
	}
	return out, nil
}

// Unsettled reports whether the reply with the Message-ID waits in the
// outbox, not yet recorded as sent (or given up). Its copy in the
// referee's mailbox must stay until it is: with several instances, the
// copy is what tells the next leader that the server took it.
func (s *Store) Unsettled(ctx context.Context, messageID string) (bool, error) {
	var n int
	err := s.q(nil).QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox WHERE message_id = ? AND status = 'pending'`, messageID).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("archive: unsettled: %w", err)
	}
	return n > 0, nil
}
