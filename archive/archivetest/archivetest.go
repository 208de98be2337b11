// Package archivetest runs a test against each backend of the store: a
// fresh SQLite store in a temporary directory, and a fresh PostgreSQL
// store on the private cluster of pbem/archive/pgtest (skipped when
// PostgreSQL is not installed, unless PBEM_REQUIRE_POSTGRES is set).
//
// A package that uses it stops the cluster at the end of its tests:
//
//	func TestMain(m *testing.M) { archivetest.Main(m) }
package archivetest

import (
	"context"
	"testing"

	"pbem/archive"
	"pbem/archive/pgtest"
)

// Backend is one kind of store.
type Backend struct {
	Name string // archive.SQLite or archive.Postgres
	// Where returns the address of a fresh, empty store (a directory, a
	// URL), removed when the test ends.
	Where func(t testing.TB) string
}

// Backends are the store's backends, SQLite first.
func Backends() []Backend {
	return []Backend{
		{archive.SQLite, func(t testing.TB) string { return t.TempDir() }},
		{archive.Postgres, pgtest.URL},
	}
}

// Main runs the package's tests and stops the PostgreSQL cluster if they
// started it (pgtest.Main). Call it from TestMain.
func Main(m *testing.M) { pgtest.Main(m) }

// Each runs f once per backend, as a subtest named after it, with a fresh
// store opened with opts (nil: the defaults) and closed when the subtest
// ends.
func Each(t *testing.T, opts *archive.Options, f func(t *testing.T, s *archive.Store)) {
	t.Helper()
	for _, b := range Backends() {
		t.Run(b.Name, func(t *testing.T) {
			s, err := archive.OpenStore(context.Background(), b.Where(t), opts)
			if err != nil {
				t.Fatalf("archivetest: %v", err)
			}
			t.Cleanup(func() { s.Close() })
			f(t, s)
		})
	}
}
