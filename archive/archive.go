// Package archive is pbem's durable storage: an embedded SQLite database
// (through the pure-Go modernc.org/sqlite driver) in a data directory, with
// versioned migrations. It keeps the referee's games, players, processed
// message ids and outbox, and the archive of finished games (one row per
// game: tags, canonical record text and a unique content hash).
//
// Every change a request makes is committed in one transaction
// (Store.Commit): either all of it is stored, or none of it is.
package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

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
}

// Store is the SQLite store. Its methods are safe for concurrent use.
type Store struct {
	db   *sql.DB
	path string
	now  func() time.Time
	prep prepared // the hot statements, prepared once
	// wmu serializes the hot write transactions (commits, and the
	// outbox's marks) of this Store: a writer waits here, woken the moment
	// the one before commits, instead of in SQLite's busy handler, which
	// sleeps 1 to 100 ms between tries. Other writers (and other
	// processes) still meet the busy timeout.
	wmu sync.Mutex

	// failAt, when set (tests), is called at each step of Commit and fails
	// the commit when it returns an error.
	failAt func(step string) error
}

// Open opens (creating it if needed) the database in dir (DefaultDir when
// empty) and brings its schema up to date. The database is in WAL mode with
// full synchronous writes, foreign keys and a busy timeout.
func Open(ctx context.Context, dir string, opts *Options) (*Store, error) {
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
	if dir == "" {
		dir = DefaultDir
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	path := filepath.Join(dir, DBFile)
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

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Close closes the database.
func (s *Store) Close() error {
	s.closePrepared()
	return s.db.Close()
}

// DB is the underlying database, for tools and tests that read it directly.
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
