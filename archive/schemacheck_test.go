package archive

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckSQLiteSchema (issue 42): restore accepted a crafted database
// (a trigger added to it survived). A store of every schema version
// passes; one with an object added, dropped or changed is refused,
// naming it.
func TestCheckSQLiteSchema(t *testing.T) {
	ctx := context.Background()
	for k := 1; k <= len(migrations); k++ {
		dir := t.TempDir()
		s := bareStore(t, dir)
		require.NoError(t, s.migrateTo(ctx, migrations[:k]))
		assert.NoError(t, CheckSQLiteSchema(ctx, filepath.Join(dir, DBFile)), "a store of version %d", migrations[k-1].version)
	}
	for _, c := range []struct{ name, sql, want string }{
		{"trigger", `CREATE TRIGGER evil AFTER INSERT ON outbox BEGIN UPDATE outbox SET status = 'sent'; END`, "unexpected trigger evil on outbox"},
		{"index", `CREATE INDEX spy ON players (address)`, "unexpected index spy on players"},
		{"view", `CREATE VIEW v AS SELECT 1`, "unexpected view v on v"},
		{"table", `CREATE TABLE extra (x INTEGER)`, "unexpected table extra on extra"},
		{"column", `ALTER TABLE players ADD COLUMN note TEXT`, "changed table players on players"},
		{"dropped", `DROP INDEX ` + anIndex(t), "missing index " + anIndex(t)},
		{"migration", `DELETE FROM schema_migrations WHERE version = 3`, "records the migrations"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s := open(t, dir)
			_, err := s.DB().Exec(c.sql)
			require.NoError(t, err)
			require.NoError(t, s.Close())
			err = CheckSQLiteSchema(ctx, filepath.Join(dir, DBFile))
			require.Error(t, err, "after %s", c.sql)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

// anIndex is the name of an index of a fresh store.
func anIndex(t *testing.T) string {
	dir := t.TempDir()
	s := open(t, dir)
	var name string
	err := s.DB().QueryRow(`SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name LIMIT 1`).Scan(&name)
	require.NoError(t, err, "a fresh store has no index")
	return name
}
