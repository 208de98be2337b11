package pgtest

import (
	"database/sql"
	"testing"
)

func TestMain(m *testing.M) { Main(m) }

// TestURL gives each test a schema of its own: a table made in one is not
// seen from another, and pg_trgm is at hand in both.
func TestURL(t *testing.T) {
	a, b := URL(t), URL(t)
	if a == b {
		t.Fatalf("URL gave %s twice", a)
	}
	dba, err := sql.Open("pgx", a)
	if err != nil {
		t.Fatal(err)
	}
	defer dba.Close()
	dbb, err := sql.Open("pgx", b)
	if err != nil {
		t.Fatal(err)
	}
	defer dbb.Close()
	if _, err := dba.Exec(`CREATE TABLE t (x TEXT)`); err != nil {
		t.Fatal(err)
	}
	if _, err := dbb.Exec(`SELECT * FROM t`); err == nil {
		t.Errorf("a table of one schema is seen from another")
	}
	if _, err := dbb.Exec(`CREATE TABLE t (x TEXT); CREATE INDEX ON t USING gin (x gin_trgm_ops)`); err != nil {
		t.Errorf("pg_trgm: %v", err)
	}
}
