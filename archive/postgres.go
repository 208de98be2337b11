package archive

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// Backends of a Store (Store.Backend).
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// IsPostgresURL reports whether a store address names a PostgreSQL
// database (postgres:// or postgresql://) rather than a data directory.
func IsPostgresURL(where string) bool {
	w := strings.ToLower(strings.TrimSpace(where))
	return strings.HasPrefix(w, "postgres://") || strings.HasPrefix(w, "postgresql://")
}

// OpenStore opens the store at where: a PostgreSQL database when where is
// a postgres:// or postgresql:// URL, else SQLite in the data directory
// where (DefaultDir when empty), as Open does. Either way the schema is
// brought up to date.
func OpenStore(ctx context.Context, where string, opts *Options) (*Store, error) {
	if IsPostgresURL(where) {
		return openPostgres(ctx, strings.TrimSpace(where), opts)
	}
	if scheme, _, ok := strings.Cut(where, "://"); ok && !strings.ContainsAny(scheme, `/\.`) {
		return nil, fmt.Errorf("archive: store %s: unknown kind %q; expected a data directory (SQLite) or a postgres:// URL", redact(where), scheme)
	}
	return Open(ctx, where, opts)
}

// Backend is the store's database: SQLite or Postgres.
func (s *Store) Backend() string {
	if s.pg {
		return Postgres
	}
	return SQLite
}

// openPostgres connects to the database of the URL, checks that it
// answers, and migrates it.
func openPostgres(ctx context.Context, rawURL string, opts *Options) (*Store, error) {
	s, err := connectPostgres(ctx, rawURL, opts)
	if err != nil {
		return nil, err
	}
	if err := s.migrate(ctx); err != nil {
		s.db.Close()
		return nil, err
	}
	return s, nil
}

// connectPostgres connects to the database of the URL and checks that it
// answers.
func connectPostgres(ctx context.Context, rawURL string, opts *Options) (*Store, error) {
	o := options(opts)
	shown := redact(rawURL)
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("archive: store %s: %v; expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=...]", shown, unwrapParse(err))
	}
	// A writer waits for another's lock (the writer lock, a row) up to
	// BusyTimeout, as SQLite's busy timeout makes it wait, then fails.
	if _, set := cfg.RuntimeParams["lock_timeout"]; !set {
		cfg.RuntimeParams["lock_timeout"] = strconv.FormatInt(o.BusyTimeout.Milliseconds(), 10)
	}
	if o.tracer != nil {
		cfg.Tracer = o.tracer
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 10 * time.Second
	}
	db := sql.OpenDB(pgConnector{stdlib.GetConnector(*cfg)})
	// Keep the connections the store's concurrent users open (the batch
	// handler, the sender's lanes and marks, the web, the clock): with
	// database/sql's default of two idle ones, every other connection was
	// closed after each use and opened again, a new server process and
	// every statement prepared again each time, which made a move wait
	// about 100 ms at 100 moves a second.
	db.SetMaxIdleConns(pgIdleConns)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		msg := strings.Join(strings.Fields(err.Error()), " ") // pgx writes one line per address tried
		return nil, fmt.Errorf("archive: store %s: cannot connect: %s; expected a PostgreSQL server that answers at this address and lets the user in", shown, msg)
	}
	return &Store{db: db, path: shown, now: o.Now, pg: true}, nil
}

// unwrapParse drops pgx's repetition of the whole URL (whose password it
// masks on a best-effort basis only) from a parse error.
func unwrapParse(err error) string {
	msg := err.Error()
	if _, rest, ok := strings.Cut(msg, "`: "); ok {
		return rest
	}
	return msg
}

// userinfoRE finds the password of a URL that does not parse.
var userinfoRE = regexp.MustCompile(`(://[^:/@]*:)[^@]*@`)

// redact hides the password of a URL, for messages and Path.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return userinfoRE.ReplaceAllString(raw, "${1}xxxxx@")
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// writerLock is the key of the PostgreSQL advisory lock every write
// transaction of a Store holds: writers go one at a time, as SQLite's
// BEGIN IMMEDIATE makes them go.
const writerLock = 0x7062656d_61726368 // "pbemarch"

// txKind is what a write transaction is, for begin.
type txKind int

const (
	// txWrite takes the writer lock and is fenced (Fence): every write
	// of the referee's.
	txWrite txKind = iota
	// txMarks is fenced without the writer lock: updates of existing
	// rows only (the outbox's marks), which no other writer's reads
	// depend on.
	txMarks
	// txUnfenced takes the writer lock but is not fenced: the schema's
	// migrations (the lease's table may not exist yet) and the archive's
	// search index, derived from rows already stored, which any
	// instance may fill in.
	txUnfenced
)

// begin starts a write transaction (txWrite). It is the one place where
// the package's write transactions begin (beginTx).
func (s *Store) begin(ctx context.Context) (*sql.Tx, error) { return s.beginTx(ctx, txWrite) }

// beginTx starts a write transaction of the kind. On PostgreSQL it first
// takes the writer lock (released at its commit or rollback), unless it
// is txMarks, so that the transaction, at READ COMMITTED, sees no other
// writer's commits while it runs: what it reads stays as it read it until
// it commits. Then, unless it is txUnfenced, it checks the fence
// (checkFence): a Store whose epoch is no longer the lease's gets
// ErrNotLeader and writes nothing.
func (s *Store) beginTx(ctx context.Context, kind txKind) (*sql.Tx, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	if s.pg && kind != txMarks {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, int64(writerLock)); err != nil {
			tx.Rollback()
			return nil, fmt.Errorf("waiting for the writer lock: %w", err)
		}
	}
	if kind != txUnfenced {
		if err := s.checkFence(ctx, tx); err != nil {
			tx.Rollback()
			return nil, err
		}
	}
	return tx, nil
}

// pgCode is the SQLSTATE of a PostgreSQL error, "" for any other error.
func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// uniqueViolation reports whether err is the refusal of a row whose key
// (primary or unique) is taken.
func uniqueViolation(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "UNIQUE") || pgCode(err) == "23505")
}

// pgIdleConns is how many idle connections a PostgreSQL store keeps.
const pgIdleConns = 16

// pgConnector makes the connections of a PostgreSQL store speak the SQL
// the package writes: ? placeholders and booleans as 0 and 1.
type pgConnector struct{ driver.Connector }

func (c pgConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &pgConn{conn.(*stdlib.Conn)}, nil
}

// pgConn is a pgx connection that rebinds every query text (rebind) and
// passes booleans as the integers 0 and 1, which the schema stores them
// as on both backends (SQLite has no boolean type).
type pgConn struct{ *stdlib.Conn }

func (c *pgConn) Prepare(query string) (driver.Stmt, error) {
	return c.Conn.Prepare(rebind(query))
}

func (c *pgConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, rebind(query))
}

func (c *pgConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.ExecContext(ctx, rebind(query), args)
}

func (c *pgConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.QueryContext(ctx, rebind(query), args)
}

func (c *pgConn) CheckNamedValue(nv *driver.NamedValue) error {
	if b, ok := nv.Value.(bool); ok {
		nv.Value = int64(0)
		if b {
			nv.Value = int64(1)
		}
	}
	return c.Conn.CheckNamedValue(nv)
}

// rebind turns the ? placeholders of a query into PostgreSQL's $1, $2, ...
// in order. A ? inside a string literal ('...', E'...'), a quoted
// identifier ("..."), a dollar-quoted string ($$...$$, $tag$...$tag$) or a
// comment (-- to the end of the line, /* ... */) is text, and stays.
func rebind(query string) string {
	if !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	for i := 0; i < len(query); {
		c := query[i]
		switch {
		case c == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			i++
			continue
		case c == '\'' || c == '"':
			// Up to the closing quote; a doubled quote is one inside.
			j := i + 1
			for j < len(query) {
				if query[j] == c {
					if j+1 < len(query) && query[j+1] == c {
						j += 2
						continue
					}
					break
				}
				if query[j] == '\\' && c == '\'' && i > 0 && (query[i-1] == 'E' || query[i-1] == 'e') {
					j++ // E'...\'...'
				}
				j++
			}
			b.WriteString(query[i:min(j+1, len(query))])
			i = j + 1
			continue
		case c == '-' && strings.HasPrefix(query[i:], "--"):
			j := strings.IndexByte(query[i:], '\n')
			if j < 0 {
				j = len(query) - i
			}
			b.WriteString(query[i : i+j])
			i += j
			continue
		case c == '/' && strings.HasPrefix(query[i:], "/*"):
			j := strings.Index(query[i+2:], "*/")
			end := len(query)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			b.WriteString(query[i:end])
			i = end
			continue
		case c == '$':
			if tag, ok := dollarTag(query[i:]); ok {
				end := strings.Index(query[i+len(tag):], tag)
				stop := len(query)
				if end >= 0 {
					stop = i + len(tag) + end + len(tag)
				}
				b.WriteString(query[i:stop])
				i = stop
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// dollarTag returns the opening tag of a dollar-quoted string at the start
// of s ($$ or $name$), if there is one ($1 is a parameter, not a tag).
func dollarTag(s string) (string, bool) {
	for j := 1; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '$':
			return s[:j+1], true
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 || j > 1 && c >= '0' && c <= '9':
		default:
			return "", false
		}
	}
	return "", false
}
