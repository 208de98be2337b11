// Package archive is pbem's durable storage: an embedded SQLite database
// (through the pure-Go modernc.org/sqlite driver) in a data directory, or
// a PostgreSQL database (through github.com/jackc/pgx/v5), with the same
// versioned migrations. It keeps the referee's games, players, processed
// message ids and outbox, and the archive of finished games (one row per
// game: tags, canonical record text and a unique content hash).
//
// Every change a request makes is committed in one transaction
// (Store.Commit): either all of it is stored, or none of it is.
//
// # Two backends
//
// OpenStore picks the backend from the store's address: a data directory
// is SQLite (the default; Open), a postgres:// URL is PostgreSQL. Every
// method behaves alike on both; the SQL that differs is chosen in this
// package, nowhere else. The queries are written once, with ? placeholders,
// which a PostgreSQL store's connections rebind to $1, $2, ... (a ? in a
// string literal or a comment stays); booleans are stored as 0 and 1 on
// both. Ids come from INSERT ... RETURNING id (SQLite 3.35 and PostgreSQL
// alike), conflicts are ON CONFLICT clauses, and the schema steps that
// cannot be written alike (column types, triggers, the full-text index)
// have a PostgreSQL text of their own under the same number. Text columns
// are COLLATE "C" on PostgreSQL, so that text compares and sorts by bytes
// as in SQLite, whatever the database's locale.
//
// Transactions: SQLite lets one writer at a time (every transaction
// begins IMMEDIATE), waiting up to Options.BusyTimeout for another. On
// PostgreSQL every write transaction of more than one statement takes one
// advisory lock first (pg_advisory_xact_lock), so that writers go one at a
// time there too, and runs at READ COMMITTED: no other writer commits
// while it runs, so what it read stays as read, and readers never wait.
// The optimistic checks (a game's or player's Version, a processed
// Message-ID) are made by the writing statements themselves, as on SQLite.
// No serialization failure can arise, so nothing is retried in the store;
// a lock not granted within BusyTimeout (lock_timeout) fails the
// transaction, as SQLite's busy timeout does, and the caller tries again.
// The hot write transactions (Commit, the outbox's marks) go to a
// PostgreSQL server as one pipelined batch (BEGIN, the writer lock, the
// fence check, every statement) and their COMMIT: two round trips,
// whatever the batch holds; their checks are made on the batch's results
// (wtx).
// Backups of a PostgreSQL store are the operator's (pg_dump): Backup and
// IntegrityCheck are for SQLite only.
//
// # Leadership and fencing
//
// Several referee instances may share one PostgreSQL store; one of them,
// the leader, writes. The leader holds a lease, the one row of the table
// leader: its holder, an epoch raised by every new holder, and when it
// expires, by the database's clock (never the machines'). Acquire takes
// the lease when it has expired; Renew extends it while the epoch is
// still the holder's. A leader calls Fence with its epoch: from then on
// every write transaction of the Store checks, inside the transaction and
// after its writer lock, that the lease's epoch is still that one (on
// PostgreSQL the row is read FOR SHARE, so that a takeover's UPDATE waits
// for the commits in flight, and every later commit of the former leader
// sees the new epoch), and fails with ErrNotLeader, having written
// nothing, when it is not. A paused or partitioned former leader can
// therefore never commit once another has taken over.
//
// The check sits where write transactions begin (Store.begin), so no
// write path of the package skips it; only the schema's migrations, the
// archive's search index (rows derived from entries already stored, which
// any instance may fill in, as the web pages' queries do) and the
// reservation of new ids (NewGameID, NewTournamentID: a number taken
// decides nothing) are written unfenced. Single-statement writes (the outbox's marks, Prune)
// run in a transaction of their own while the Store is fenced.
//
// On SQLite the table exists (the migrations are the same) but one
// process holds the data directory, so pbem serve neither takes the lease
// there nor fences its store.
package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// DefaultDir is the data directory used when none is given.
const DefaultDir = "pbem-data"

// DBFile is the name of the database file in the data directory.
const DBFile = "pbem.db"

var (
	// ErrNotFound is returned for a game or row that does not exist.
	ErrNotFound = errors.New("archive: not found")
	// ErrDuplicate is returned by Commit when the change's message id was
	// already processed; nothing was changed.
	ErrDuplicate = errors.New("archive: message already processed")
	// ErrConflict is returned by Commit when a game or player was changed
	// by someone else since it was read; nothing was changed, and the
	// caller should read again and retry.
	ErrConflict = errors.New("archive: concurrent change")
)

// Options configure a Store. The zero value (or nil) means the defaults.
type Options struct {
	// BusyTimeout is how long a writer waits for another's lock (default
	// 10s).
	BusyTimeout time.Duration
	// Now is the clock used for bookkeeping times (migrations applied,
	// processed ids); default time.Now.
	Now func() time.Time

	// tracer, when set (tests), traces every query, batch and prepare of
	// a PostgreSQL store's connections: the tests count round trips.
	tracer pgx.QueryTracer
}

// Store is the store, on SQLite or PostgreSQL. Its methods are safe for
// concurrent use.
type Store struct {
	db   *sql.DB
	path string // the SQLite file, or the PostgreSQL URL without its password
	pg   bool   // PostgreSQL
	now  func() time.Time
	prep prepared // the hot statements, prepared once
	// wmu serializes the hot write transactions (commits, and the
	// outbox's marks) of this Store: a writer waits here, woken the moment
	// the one before commits, instead of in SQLite's busy handler, which
	// sleeps 1 to 100 ms between tries. Other writers (and other
	// processes) still meet the busy timeout.
	wmu sync.Mutex
	// fence is the epoch of the lease the Store's writes are fenced at,
	// plus one: 0 (the zero value) is not fenced, 1 a standby's (every
	// write refused). See Fence.
	fence atomic.Int64

	// failAt, when set (tests), is called at each step of Commit and fails
	// the commit when it returns an error.
	failAt func(step string) error
}

// Open opens (creating it if needed) the database in dir (DefaultDir when
// empty) and brings its schema up to date. The database is in WAL mode with
// full synchronous writes, foreign keys and a busy timeout.
func Open(ctx context.Context, dir string, opts *Options) (*Store, error) {
	o := options(opts)
	if dir == "" {
		dir = DefaultDir
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	path := filepath.Join(dir, DBFile)
	// The store holds live tokens: made private, as SQLite would make it
	// under the umask (0644 under 022). Its -wal and -shm files take the
	// mode of the database file.
	if f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		f.Close()
	} else if !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("archive: create %s: %w", path, err)
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", o.BusyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("archive: open %s: %w", path, err)
	}
	s := &Store{db: db, path: path, now: o.Now}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// options are opts with the defaults filled in.
func options(opts *Options) Options {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = 10 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Path is the database file, or for PostgreSQL its URL without the
// password.
func (s *Store) Path() string { return s.path }

// Close closes the database.
func (s *Store) Close() error {
	s.closePrepared()
	return s.db.Close()
}

// DB is the underlying database, for tools and tests that read it directly.
// On PostgreSQL its queries too may use ? placeholders and pass booleans,
// as the package's own do.
func (s *Store) DB() *sql.DB { return s.db }

// unix stores times as Unix nanoseconds, 0 for the zero time.
func unix(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnix(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}
