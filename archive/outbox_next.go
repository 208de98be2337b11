package archive

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// NextAttempt returns the earliest next attempt of a mail waiting for
// delivery; ok is false when none waits. A sender sleeps until then instead
// of polling, so a retry goes out when it is due.
func (s *Store) NextAttempt(ctx context.Context) (at time.Time, ok bool, err error) {
	var n sql.NullInt64
	if err := s.db.QueryRowContext(ctx, `SELECT min(next_attempt) FROM outbox WHERE status = 'pending'`).Scan(&n); err != nil {
		return time.Time{}, false, fmt.Errorf("archive: next attempt: %w", err)
	}
	if !n.Valid {
		return time.Time{}, false, nil
	}
	return fromUnix(n.Int64), true, nil
}
