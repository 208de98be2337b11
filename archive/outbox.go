package archive

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrInvalidChange marks a Change that can never be stored as it is (two
// mails with one Message-ID, a mail without a recipient): committing it
// again fails the same way, unlike a failure of the database (busy, a full
// disk), after which the same commit may succeed. Nothing of it is stored.
var ErrInvalidChange = errors.New("archive: invalid change")

// sqliteConstraint is SQLite's primary result code for a violated
// constraint (UNIQUE, NOT NULL, CHECK); the extended codes keep it in
// their low byte.
const sqliteConstraint = 19

// constraintFailed reports whether err is the refusal of a row that breaks
// a constraint: SQLite's result code, PostgreSQL's SQLSTATE class 23
// (integrity constraint violation).
func constraintFailed(err error) bool {
	var c interface{ Code() int }
	return errors.As(err, &c) && c.Code()&0xff == sqliteConstraint || strings.HasPrefix(pgCode(err), "23")
}

func putOutgoing(ctx context.Context, w *wtx, o *Outgoing, at time.Time, id *string) error {
	if o.MessageID == "" {
		return fmt.Errorf("%w: outgoing mail without a Message-ID", ErrInvalidChange)
	}
	if len(o.To)+len(o.Cc) == 0 {
		return fmt.Errorf("%w: outgoing mail %s has no recipient", ErrInvalidChange, o.MessageID)
	}
	from, _ := json.Marshal(o.From)
	to, _ := json.Marshal(nonNil(o.To))
	cc, _ := json.Marshal(nonNil(o.Cc))
	refs, _ := json.Marshal(nonNilStrings(o.References))
	replyTo := ""
	if o.ReplyTo != nil {
		b, _ := json.Marshal(o.ReplyTo)
		replyTo = string(b)
	}
	status := o.Status
	if status == "" {
		status = Pending
	}
	next := o.NextAttempt
	if next.IsZero() {
		next = o.Date
	}
	if next.IsZero() {
		next = at
	}
	auto := o.AutoSubmitted
	if auto == "" {
		auto = AutoReplied
	}
	var inline []byte
	if len(o.Inline) > 0 {
		inline, _ = json.Marshal(o.Inline)
	}
	return w.queryRow(ctx, `INSERT INTO outbox (message_id, game_id, from_addr, to_addrs, cc_addrs, reply_to, subject,
	date, in_reply_to, refs, body, status, attempts, next_attempt, last_error, sent_at, auto, html, inline, calendar, unsubscribe)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?) RETURNING id`,
		[]any{o.MessageID, o.GameID, string(from), string(to), string(cc), replyTo, o.Subject, unix(o.Date), o.InReplyTo,
			string(refs), o.Text, status, o.Attempts, unix(next), o.LastError, auto, o.HTML, inline, o.Calendar, o.Unsubscribe},
		func(scan func(...any) error) error {
			var n int64
			err := scan(&n)
			if constraintFailed(err) {
				return fmt.Errorf("%w: outgoing mail %s: %w", ErrInvalidChange, o.MessageID, err)
			}
			*id = strconv.FormatInt(n, 10)
			return err
		})
}

func nonNil(a []Address) []Address {
	if a == nil {
		return []Address{}
	}
	return a
}

func nonNilStrings(a []string) []string {
	if a == nil {
		return []string{}
	}
	return a
}

const outgoingColumns = `id, message_id, game_id, from_addr, to_addrs, cc_addrs, reply_to, subject, date, in_reply_to, refs, body,
	status, attempts, next_attempt, last_error, auto, html, inline, calendar, unsubscribe`

// Due returns up to limit pending mails whose next attempt is at or before
// now, oldest first.
func (s *Store) Due(ctx context.Context, now time.Time, limit int) ([]Outgoing, error) {
	if limit <= 0 {
		limit = 100
	}
	rows, err := s.q(nil).QueryContext(ctx, `SELECT `+outgoingColumns+` FROM outbox
WHERE status = 'pending' AND next_attempt <= ? ORDER BY next_attempt, id LIMIT ?`, unix(now), limit)
	if err != nil {
		return nil, fmt.Errorf("archive: due: %w", err)
	}
	defer rows.Close()
	var out []Outgoing
	for rows.Next() {
		o, err := scanOutgoing(rows)
		if err != nil {
			return nil, fmt.Errorf("archive: due: %w", err)
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("archive: due: %w", err)
	}
	return out, nil
}

// Outgoing returns one outbox row by id, whatever its status.
func (s *Store) Outgoing(ctx context.Context, id string) (Outgoing, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+outgoingColumns+` FROM outbox WHERE id = ?`, id)
	if err != nil {
		return Outgoing{}, fmt.Errorf("archive: outgoing: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return Outgoing{}, fmt.Errorf("archive: outgoing: %w", err)
		}
		return Outgoing{}, ErrNotFound
	}
	o, err := scanOutgoing(rows)
	if err != nil {
		return Outgoing{}, fmt.Errorf("archive: outgoing: %w", err)
	}
	return o, nil
}

func scanOutgoing(rows *sql.Rows) (Outgoing, error) {
	var o Outgoing
	var id, date, next int64
	var from, to, cc, replyTo, refs string
	var inline []byte
	if err := rows.Scan(&id, &o.MessageID, &o.GameID, &from, &to, &cc, &replyTo, &o.Subject, &date, &o.InReplyTo,
		&refs, &o.Text, &o.Status, &o.Attempts, &next, &o.LastError, &o.AutoSubmitted, &o.HTML, &inline, &o.Calendar, &o.Unsubscribe); err != nil {
		return o, err
	}
	if len(inline) > 0 {
		if err := json.Unmarshal(inline, &o.Inline); err != nil {
			return o, fmt.Errorf("outbox row %d: %w", id, err)
		}
	}
	o.ID = strconv.FormatInt(id, 10)
	o.Date, o.NextAttempt = fromUnix(date), fromUnix(next)
	for _, f := range []struct {
		text string
		v    any
	}{{from, &o.From}, {to, &o.To}, {cc, &o.Cc}, {refs, &o.References}} {
		if err := json.Unmarshal([]byte(f.text), f.v); err != nil {
			return o, fmt.Errorf("outbox row %d: %w", id, err)
		}
	}
	if replyTo != "" {
		o.ReplyTo = new(Address)
		if err := json.Unmarshal([]byte(replyTo), o.ReplyTo); err != nil {
			return o, fmt.Errorf("outbox row %d: %w", id, err)
		}
	}
	if len(o.To) == 0 {
		o.To = nil
	}
	if len(o.Cc) == 0 {
		o.Cc = nil
	}
	if len(o.References) == 0 {
		o.References = nil
	}
	return o, nil
}

// Sent marks a mail delivered: Due no longer returns it.
func (s *Store) Sent(ctx context.Context, id string) error {
	return s.setStatus(ctx, "sent", `UPDATE outbox SET status = 'sent', sent_at = ? WHERE id = ?`, unix(s.now()), id)
}

// SentBatch marks several mails delivered in one transaction (one sync to
// disk). An id that names no mail is skipped; the ids it did not find are
// returned (none, normally).
func (s *Store) SentBatch(ctx context.Context, ids []string) (missing []string, err error) {
	if len(ids) == 0 {
		return nil, nil
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	at := unix(s.now())
	// Updates of existing rows only: no writer lock needed.
	err = s.write(ctx, txMarks, func(w *wtx) error {
		missing = missing[:0]
		if w.b != nil {
			return sentBatchPG(ctx, w, at, ids, &missing)
		}
		for _, id := range ids {
			err := w.exec(ctx, `UPDATE outbox SET status = 'sent', sent_at = ? WHERE id = ?`, []any{at, id}, func(n int64, err error) error {
				if err == nil && n == 0 {
					missing = append(missing, id)
				}
				return err
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("archive: sent: %w", err)
	}
	if len(missing) == 0 {
		missing = nil
	}
	return missing, nil
}

// sentBatchPG queues SentBatch's marks on PostgreSQL as one statement (an
// UPDATE of every id at once, which returns the ids it found) instead of
// one a mail: the server parses, plans and runs one statement a batch of
// marks.
func sentBatchPG(ctx context.Context, w *wtx, at int64, ids []string, missing *[]string) error {
	nums := make([]int64, 0, len(ids))
	for _, id := range ids {
		if n, err := strconv.ParseInt(id, 10, 64); err == nil {
			nums = append(nums, n)
		}
	}
	return w.queryRow(ctx, `WITH marked AS (UPDATE outbox SET status = 'sent', sent_at = ? WHERE id = ANY(?) RETURNING id)
SELECT COALESCE(array_agg(id), '{}') FROM marked`, []any{at, nums}, func(scan func(dest ...any) error) error {
		var got []int64
		if err := scan(&got); err != nil {
			return err
		}
		found := make(map[int64]bool, len(got))
		for _, n := range got {
			found[n] = true
		}
		for _, id := range ids {
			if n, err := strconv.ParseInt(id, 10, 64); err != nil || !found[n] {
				*missing = append(*missing, id)
			}
		}
		return nil
	})
}

// Retry records a failed attempt (attempts + 1, the error) and makes the
// mail due again at at.
func (s *Store) Retry(ctx context.Context, id string, at time.Time, lastErr string) error {
	return s.setStatus(ctx, "retry", `UPDATE outbox SET attempts = attempts + 1, next_attempt = ?, last_error = ?
WHERE id = ? AND status = 'pending'`, unix(at), lastErr, id)
}

// Failed records that delivery was given up: the row is kept (status
// failed) for a person to look at, and Due no longer returns it.
func (s *Store) Failed(ctx context.Context, id string, lastErr string) error {
	return s.setStatus(ctx, "failed", `UPDATE outbox SET status = 'failed', attempts = attempts + 1, last_error = ?
WHERE id = ? AND status = 'pending'`, lastErr, id)
}

func (s *Store) setStatus(ctx context.Context, what, query string, args ...any) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	res, err := s.exec1(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("archive: %s: %w", what, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("archive: %s: %w", what, err)
	}
	if n == 0 {
		return fmt.Errorf("archive: %s %v: %w", what, args[len(args)-1], ErrNotFound)
	}
	return nil
}

// Prune deletes processed message ids and sent mails older than before
// (keep them as long as a duplicate may still arrive) and reports how many
// rows went.
func (s *Store) Prune(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	for _, q := range []string{
		`DELETE FROM processed WHERE at < ?`,
		`DELETE FROM outbox WHERE status = 'sent' AND sent_at < ?`,
	} {
		res, err := s.exec1(ctx, q, unix(before))
		if err != nil {
			return total, fmt.Errorf("archive: prune: %w", err)
		}
		n, _ := res.RowsAffected()
		total += n
	}
	return total, nil
}

// Pending counts the mails waiting for delivery (for metrics).
func (s *Store) Pending(ctx context.Context) (int64, error) {
	var n int64
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM outbox WHERE status = 'pending'`).Scan(&n); err != nil {
		return 0, fmt.Errorf("archive: pending: %w", err)
	}
	return n, nil
}

// OldestPending returns the date of the oldest reply still waiting for
// delivery; ok is false when none waits. Health checks use it: a reply
// pending for minutes means the SMTP server is down or refusing.
func (s *Store) OldestPending(ctx context.Context) (date time.Time, ok bool, err error) {
	var d sql.NullInt64
	if err := s.db.QueryRowContext(ctx, `SELECT min(date) FROM outbox WHERE status = 'pending'`).Scan(&d); err != nil {
		return time.Time{}, false, fmt.Errorf("archive: oldest pending: %w", err)
	}
	if !d.Valid {
		return time.Time{}, false, nil
	}
	return fromUnix(d.Int64), true, nil
}

// exec1 runs a write of one statement: as it is, or, when the Store is
// fenced (Fence), in a transaction of its own that checks the fence first.
func (s *Store) exec1(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if _, fenced := s.Fenced(); !fenced {
		return s.q(nil).ExecContext(ctx, query, args...)
	}
	var n int64
	err := s.write(ctx, txMarks, func(w *wtx) error {
		return w.exec(ctx, query, args, func(rows int64, err error) error {
			n = rows
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	return driver.RowsAffected(n), nil
}

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

// SentText returns the text of the mail the referee queued with this
// Message-ID (angle brackets optional), whatever its status, or
// ErrNotFound (no such mail, or pruned since). The referee reads it to know
// which lines of a reply reproduce its own mail.
func (s *Store) SentText(ctx context.Context, messageID string) (string, error) {
	id := strings.Trim(strings.TrimSpace(messageID), "<>")
	var body string
	err := s.db.QueryRowContext(ctx, `SELECT body FROM outbox WHERE message_id = ?`, id).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("archive: sent text: %w", err)
	}
	return body, nil
}
