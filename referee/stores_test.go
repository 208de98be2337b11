package referee_test

import (
	"testing"

	"pbem/archive/archivetest"
)

// TestMain stops the private PostgreSQL cluster (archive/pgtest) that the
// tests on PostgreSQL started, if any.
func TestMain(m *testing.M) { archivetest.Main(m) }

// store is the kind of store a harness keeps its games in: SQLite in a
// temporary directory, or PostgreSQL in a new schema of the private
// cluster (skipped when PostgreSQL is not installed, unless
// PBEM_REQUIRE_POSTGRES is set).
type store = archivetest.Backend

// sqliteOnly is SQLite, the default store, for the benchmarks, the fuzz
// target and the tests that keep to it (each says why).
var sqliteOnly = archivetest.Backends()[0]

// eachStore runs f once per kind of store, as subtests named sqlite and
// postgres: every test of the referee that stores games runs on both.
func eachStore(t *testing.T, f func(t *testing.T, db store)) {
	t.Helper()
	for _, b := range archivetest.Backends() {
		t.Run(b.Name, func(t *testing.T) { f(t, b) })
	}
}
