package archive

import (
	"testing"

	"pbem/archive/pgtest"
)

// TestMain stops the private PostgreSQL cluster (pgtest) the tests
// started, if any.
func TestMain(m *testing.M) { pgtest.Main(m) }

// backends are the stores every test of a store runs against: SQLite in a
// temporary directory, and PostgreSQL in a new database of the private
// cluster (skipped when PostgreSQL is not installed, unless
// PBEM_REQUIRE_POSTGRES is set).
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

// fresh is the address of another fresh store on the backend of where.
func fresh(t *testing.T, where string) string {
	if IsPostgresURL(where) {
		return pgtest.URL(t)
	}
	return t.TempDir()
}
