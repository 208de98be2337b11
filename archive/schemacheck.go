package archive

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// schemaObject is one row of sqlite_master, its SQL with white space
// collapsed.
type schemaObject struct {
	kind, name, table, sql string
}

func (o schemaObject) String() string { return o.kind + " " + o.name + " on " + o.table }

// CheckSQLiteSchema checks that the SQLite database file at path (a backup
// about to be restored) has exactly the schema a store of its schema
// version has: the same tables, indexes, triggers and views, each with the
// same SQL, and the migrations up to its version recorded. A database
// with anything added (a trigger that rewrites what the referee writes,
// say), dropped or changed is refused, naming what differs. The file is
// only read; nothing in it runs.
func CheckSQLiteSchema(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return fmt.Errorf("archive: schema of %s: %w", path, err)
	}
	defer db.Close()
	var v int
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		return fmt.Errorf("archive: schema of %s: %w; expected a pbem store", path, err)
	}
	if latest := SchemaVersion(); v > latest {
		return fmt.Errorf("archive: %s has schema version %d, newer than this program's %d; upgrade pbem", path, v, latest)
	}
	var steps []migration
	for _, m := range migrations {
		if m.version <= v {
			steps = append(steps, m)
		}
	}
	if len(steps) == 0 {
		return fmt.Errorf("archive: %s has schema version %d; expected a pbem store of version 1 to %d", path, v, SchemaVersion())
	}
	var have []int
	rows, err := db.QueryContext(ctx, `SELECT version FROM schema_migrations ORDER BY version`)
	if err != nil {
		return fmt.Errorf("archive: schema of %s: %w", path, err)
	}
	for rows.Next() {
		var n int
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return fmt.Errorf("archive: schema of %s: %w", path, err)
		}
		have = append(have, n)
	}
	rows.Close()
	var want []int
	for _, m := range steps {
		want = append(want, m.version)
	}
	if !slices.Equal(have, want) {
		return fmt.Errorf("archive: %s records the migrations %v; expected %v for schema version %d", path, have, want, v)
	}
	got, err := schemaObjects(ctx, db)
	if err != nil {
		return fmt.Errorf("archive: schema of %s: %w", path, err)
	}
	expected, err := expectedSchema(ctx, steps)
	if err != nil {
		return err
	}
	var diff []string
	for name, o := range got {
		e, ok := expected[name]
		switch {
		case !ok:
			diff = append(diff, "unexpected "+o.String())
		case e != o:
			diff = append(diff, "changed "+o.String())
		}
	}
	for name, e := range expected {
		if _, ok := got[name]; !ok {
			diff = append(diff, "missing "+e.String())
		}
	}
	if len(diff) > 0 {
		slices.Sort(diff)
		return fmt.Errorf("archive: %s does not have the schema of a pbem store of version %d: %s", path, v, strings.Join(diff, "; "))
	}
	return nil
}

// expectedSchema is the schema a store made by steps has: made in a
// temporary directory and read.
func expectedSchema(ctx context.Context, steps []migration) (map[string]schemaObject, error) {
	dir, err := os.MkdirTemp("", "pbem-schema-")
	if err != nil {
		return nil, fmt.Errorf("archive: expected schema: %w", err)
	}
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, DBFile))
	if err != nil {
		return nil, fmt.Errorf("archive: expected schema: %w", err)
	}
	defer db.Close()
	s := &Store{db: db, path: dir, now: time.Now}
	if err := s.migrationsTable(ctx); err != nil {
		return nil, err
	}
	if err := s.migrateTo(ctx, steps); err != nil {
		return nil, err
	}
	objs, err := schemaObjects(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("archive: expected schema: %w", err)
	}
	return objs, nil
}

// schemaObjects reads sqlite_master by type and name.
func schemaObjects(ctx context.Context, db *sql.DB) (map[string]schemaObject, error) {
	rows, err := db.QueryContext(ctx, `SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_master`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]schemaObject{}
	for rows.Next() {
		var o schemaObject
		if err := rows.Scan(&o.kind, &o.name, &o.table, &o.sql); err != nil {
			return nil, err
		}
		if strings.HasPrefix(o.name, "sqlite_stat") {
			continue // ANALYZE's statistics (PRAGMA optimize): no schema
		}
		o.sql = strings.Join(strings.Fields(o.sql), " ")
		out[o.kind+" "+o.name] = o
	}
	return out, rows.Err()
}
