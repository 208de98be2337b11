package archive

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"pbem/archive/pgtest"
)

// TestMain stops the private PostgreSQL cluster (pgtest) the tests
// started, if any.
func TestMain(m *testing.M) { pgtest.Main(m) }

// backends are the stores every test of a store runs against: SQLite in a
// temporary directory, and PostgreSQL in a new schema of the private
// cluster (skipped when PostgreSQL is not installed, unless
// PBEM_REQUIRE_POSTGRES is set). Tests of SQLite itself (the default
// directory, its settings, the fts5 plan, VACUUM INTO) keep to SQLite, and
// say so; the benchmarks measure SQLite, the default store.
var backends = []struct {
	name  string
	where func(t testing.TB) string // a fresh store's address
}{
	{SQLite, func(t testing.TB) string { return t.TempDir() }},
	{Postgres, pgtest.URL},
}

// eachStore runs f once per backend, as a subtest named after it, with the
// address of a fresh store (open it with open, as often as the test needs).
func eachStore(t *testing.T, f func(t *testing.T, where string)) {
	t.Helper()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { f(t, b.where(t)) })
	}
}

// bareStore connects to the store at where (a fresh one) without
// migrating it, but for an empty schema_migrations: tests build old
// schemas on it with migrateTo. Closed when the test ends.
func bareStore(t *testing.T, where string) *Store {
	t.Helper()
	ctx := context.Background()
	var s *Store
	if IsPostgresURL(where) {
		var err error
		s, err = connectPostgres(ctx, where, &Options{Now: func() time.Time { return t0 }})
		require.NoError(t, err)
	} else {
		db, err := sql.Open("sqlite", "file:"+filepath.Join(where, DBFile))
		require.NoError(t, err)
		s = &Store{db: db, path: where, now: func() time.Time { return t0 }}
	}
	t.Cleanup(func() { s.Close() })
	require.NoError(t, s.migrationsTable(ctx))
	return s
}

// fresh is the address of another fresh store on the backend of where.
func fresh(t *testing.T, where string) string {
	if IsPostgresURL(where) {
		return pgtest.URL(t)
	}
	return t.TempDir()
}
