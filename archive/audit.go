package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// auditSchema is migration 7: what operators did, the senders they
// blocked, and the admin commands by mail waiting for their confirmation.
const auditSchema = `
CREATE TABLE audit (
	id      INTEGER PRIMARY KEY AUTOINCREMENT,
	at      INTEGER NOT NULL,
	actor   TEXT    NOT NULL,
	action  TEXT    NOT NULL,
	game_id INTEGER NOT NULL,
	reason  TEXT    NOT NULL
);
CREATE INDEX audit_game ON audit(game_id, id);

CREATE TABLE blocked (
	pattern TEXT PRIMARY KEY,
	at      INTEGER NOT NULL,
	actor   TEXT    NOT NULL,
	reason  TEXT    NOT NULL
);

CREATE TABLE admin_pending (
	token   TEXT PRIMARY KEY,
	admin   TEXT    NOT NULL,
	command TEXT    NOT NULL,
	created INTEGER NOT NULL,
	done    INTEGER NOT NULL
);
`

// Audit is one operator's action: who did what, when and why. It is
// committed with the action's own change, so an action is stored with its
// record or not at all.
type Audit struct {
	ID int64 // assigned when stored
	At time.Time
	// Actor is who acted: "cli:USER" for pbem admin on the server, the
	// admin's address for a command by mail.
	Actor string
	// Action is the command as the operator gave it, e.g. "abort 12".
	Action string
	GameID int64 // 0 for an action on no game (block, unblock)
	Reason string
}

// Block adds (or, with Remove, removes) a blocked sender: an address, or
// "@domain" for every address of a domain. Mail from a blocked sender is
// dropped unanswered.
type Block struct {
	Pattern string
	Actor   string
	Reason  string
	At      time.Time
	Remove  bool
}

// AdminPending is an admin command by mail that waits for its admin to
// answer the token mailed to it. Done marks it carried out (or refused):
// a token is used once.
type AdminPending struct {
	Token   string
	Admin   string
	Command string
	Created time.Time
	Done    bool
}

// BlockPattern normalises a blocked sender: "Bob@Example.org" ->
// "bob@example.org", "@Example.org" -> "@example.org". It refuses what is
// neither an address nor "@domain".
func BlockPattern(p string) (string, error) {
	p = strings.ToLower(strings.TrimSpace(p))
	local, domain, ok := strings.Cut(p, "@")
	if !ok || domain == "" || strings.ContainsAny(domain, "@ \t<>") || strings.ContainsAny(local, " \t<>") || !strings.Contains(domain, ".") && domain != "localhost" {
		return "", fmt.Errorf("archive: %q is not an address (name@example.org) or a domain (@example.org)", p)
	}
	return p, nil
}

func putAudit(ctx context.Context, w *wtx, a *Audit, at time.Time) error {
	if a.At.IsZero() {
		a.At = at
	}
	if a.Actor == "" || a.Action == "" {
		return fmt.Errorf("%w: an audit record needs an actor and an action", ErrInvalidChange)
	}
	return w.queryRow(ctx, `INSERT INTO audit (at, actor, action, game_id, reason) VALUES (?, ?, ?, ?, ?) RETURNING id`,
		[]any{unix(a.At), a.Actor, a.Action, a.GameID, a.Reason}, func(scan func(...any) error) error { return scan(&a.ID) })
}

func putBlock(ctx context.Context, w *wtx, b *Block, at time.Time) error {
	p, err := BlockPattern(b.Pattern)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidChange, err)
	}
	if b.Remove {
		return w.exec(ctx, `DELETE FROM blocked WHERE pattern = ?`, []any{p}, nil)
	}
	if b.At.IsZero() {
		b.At = at
	}
	return w.exec(ctx, `INSERT INTO blocked (pattern, at, actor, reason) VALUES (?, ?, ?, ?)
ON CONFLICT (pattern) DO UPDATE SET at = excluded.at, actor = excluded.actor, reason = excluded.reason`,
		[]any{p, unix(b.At), b.Actor, b.Reason}, nil)
}

// putPending stores a new pending command, or marks one done; marking
// one already done is a conflict (its token was used meanwhile).
func putPending(ctx context.Context, w *wtx, p *AdminPending, at time.Time) error {
	if !p.Done {
		if p.Created.IsZero() {
			p.Created = at
		}
		return w.exec(ctx, `INSERT INTO admin_pending (token, admin, command, created, done) VALUES (?, ?, ?, ?, 0)`,
			[]any{p.Token, strings.ToLower(p.Admin), p.Command, unix(p.Created)}, func(_ int64, err error) error {
				if err != nil && constraintFailed(err) {
					return fmt.Errorf("%w: admin token %s exists", ErrConflict, p.Token)
				}
				return err
			})
	}
	return w.exec(ctx, `UPDATE admin_pending SET done = 1 WHERE token = ? AND done = 0`, []any{p.Token}, func(n int64, err error) error {
		if err == nil && n == 0 {
			return fmt.Errorf("%w: admin token %s already used", ErrConflict, p.Token)
		}
		return err
	})
}

// putOperators writes the audit records, blocks and pending admin commands
// of a change within its transaction.
func putOperators(ctx context.Context, w *wtx, c *Change, at time.Time) error {
	for _, a := range c.Audit {
		if err := putAudit(ctx, w, a, at); err != nil {
			return err
		}
	}
	for _, b := range c.Blocks {
		if err := putBlock(ctx, w, b, at); err != nil {
			return err
		}
	}
	for _, p := range c.AdminPending {
		if err := putPending(ctx, w, p, at); err != nil {
			return err
		}
	}
	return nil
}

// Audits returns the audit records of a game (gameID > 0), or all of them
// (gameID 0), oldest first.
func (s *Store) Audits(ctx context.Context, gameID int64) ([]Audit, error) {
	q := `SELECT id, at, actor, action, game_id, reason FROM audit`
	var args []any
	if gameID > 0 {
		q += ` WHERE game_id = ?`
		args = append(args, gameID)
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY id`, args...)
	if err != nil {
		return nil, fmt.Errorf("archive: audit: %w", err)
	}
	defer rows.Close()
	var out []Audit
	for rows.Next() {
		var a Audit
		var at int64
		if err := rows.Scan(&a.ID, &at, &a.Actor, &a.Action, &a.GameID, &a.Reason); err != nil {
			return nil, fmt.Errorf("archive: audit: %w", err)
		}
		a.At = fromUnix(at)
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("archive: audit: %w", err)
	}
	return out, nil
}

// Blocked reports whether mail from addr is blocked: the address itself,
// or its domain, is in the blocked list.
func (s *Store) Blocked(ctx context.Context, addr string) (bool, error) {
	a := strings.ToLower(strings.TrimSpace(addr))
	_, domain, _ := strings.Cut(a, "@")
	var n int
	err := s.q(nil).QueryRowContext(ctx, `SELECT COUNT(*) FROM blocked WHERE pattern IN (?, ?)`, a, "@"+domain).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("archive: blocked: %w", err)
	}
	return n > 0, nil
}

// Blocks lists the blocked senders, by pattern.
func (s *Store) Blocks(ctx context.Context) ([]Block, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT pattern, at, actor, reason FROM blocked ORDER BY pattern`)
	if err != nil {
		return nil, fmt.Errorf("archive: blocks: %w", err)
	}
	defer rows.Close()
	var out []Block
	for rows.Next() {
		var b Block
		var at int64
		if err := rows.Scan(&b.Pattern, &at, &b.Actor, &b.Reason); err != nil {
			return nil, fmt.Errorf("archive: blocks: %w", err)
		}
		b.At = fromUnix(at)
		out = append(out, b)
	}
	return out, rows.Err()
}

// AdminPendingByToken returns the admin command waiting for a token, or
// ErrNotFound.
func (s *Store) AdminPendingByToken(ctx context.Context, token string) (*AdminPending, error) {
	var p AdminPending
	var created int64
	err := s.db.QueryRowContext(ctx, `SELECT token, admin, command, created, done FROM admin_pending WHERE token = ?`, token).
		Scan(&p.Token, &p.Admin, &p.Command, &created, &p.Done)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("archive: admin pending: %w", err)
	}
	p.Created = fromUnix(created)
	return &p, nil
}

// GameFilter selects games for an operator (pbem admin games). The zero
// value selects every game.
type GameFilter struct {
	// Active: invited or playing games only.
	Active bool
	// StalledSince: playing games whose turn started before it (zero: no
	// such condition).
	StalledSince time.Time
	// Player: games in which this address has a seat.
	Player string
	// Event: games of this event (the Event option).
	Event string
}

// FindGames returns the games f selects, by id.
func (s *Store) FindGames(ctx context.Context, f GameFilter) ([]*Game, error) {
	var where []string
	var args []any
	if f.Active {
		where = append(where, `status IN ('invited', 'playing')`)
	}
	if !f.StalledSince.IsZero() {
		where = append(where, `status = 'playing' AND turn_start < ?`)
		args = append(args, unix(f.StalledSince))
	}
	if f.Player != "" {
		where = append(where, `id IN (SELECT game_id FROM seats WHERE address = ?)`)
		args = append(args, strings.ToLower(strings.TrimSpace(f.Player)))
	}
	if f.Event != "" {
		where = append(where, s.jsonText("options", "event")+` = ?`)
		args = append(args, f.Event)
	}
	q := `SELECT ` + gameColumns + ` FROM games`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, ` AND `)
	}
	return s.games(ctx, s.db, q+` ORDER BY id`, args...)
}

// ErrPostgresBackup is the error of Backup and IntegrityCheck on a
// PostgreSQL store, whose backups are the operator's.
var ErrPostgresBackup = errors.New("the store is PostgreSQL: back it up with pg_dump (and restore with pg_restore or psql), not pbem backup")

// Backup writes a consistent copy of the database to file (which must not
// exist) with VACUUM INTO: one read transaction, so the copy holds exactly
// the commits made before it began, while the referee goes on writing.
func (s *Store) Backup(ctx context.Context, file string) error {
	if s.pg {
		return fmt.Errorf("archive: backup to %s: %w", file, ErrPostgresBackup)
	}
	// VACUUM INTO writes into an empty file: made first, private (the
	// copy holds live tokens and the referee's secrets), since SQLite
	// would make it under the umask.
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("archive: backup to %s: %w", file, err)
	}
	f.Close()
	if _, err := s.db.ExecContext(ctx, `VACUUM INTO ?`, file); err != nil {
		os.Remove(file)
		return fmt.Errorf("archive: backup to %s: %w", file, err)
	}
	return os.Chmod(file, 0o600)
}

// IntegrityCheck runs PRAGMA integrity_check and returns its findings,
// nil when the database is sound. A PostgreSQL store has no such check
// (ErrPostgresBackup).
func (s *Store) IntegrityCheck(ctx context.Context) ([]string, error) {
	if s.pg {
		return nil, fmt.Errorf("archive: integrity check: %w", ErrPostgresBackup)
	}
	rows, err := s.db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return nil, fmt.Errorf("archive: integrity check: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			return nil, fmt.Errorf("archive: integrity check: %w", err)
		}
		if l != "ok" {
			out = append(out, l)
		}
	}
	return out, rows.Err()
}
