package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"pbem/archive"
)

// A backup is FILE, a SQLite database (a consistent copy of the store made
// with VACUUM INTO), and, beside it, the directory FILE.d holding what the
// data directory keeps outside the database: the embedded mail servers'
// journals (mail/) and the SMTP sender's log of accepted replies
// (smtp-accepted.log), when they are in use.
//
// The journals are copied before the database and the log after it: every
// message the copied database has not processed is then in the copied
// mailbox, to be processed after a restore, and one it has processed is
// skipped by its Message-ID; every reply the copied log holds as accepted
// by the SMTP server is either sent in the copied database or settled as
// sent from the log, never sent twice. The journals are append-only, and a
// record torn by the copy is cut off when they are replayed.

// errPostgresBackup refuses pbem backup and restore of a PostgreSQL store,
// which is the operator's to back up.
var errPostgresBackup = fmt.Errorf("the store is PostgreSQL (store: in the configuration); back it up with pg_dump and restore it with pg_restore (or psql), and copy the data directory's mail/ and %s beside it if they are in use", acceptedLog)

// backupSide is the directory beside a backup file.
func backupSide(file string) string { return file + ".d" }

const acceptedLog = "smtp-accepted.log"

func backupFlags(c *cli, name string, args []string) (file string, cfg *Config, code int, done bool) {
	fs := c.flags(name)
	config := fs.String("config", "", "configuration `file` of pbem serve (default: the embedded servers' defaults)")
	data := fs.String("data", "", "data `dir`ectory (default: the config's data_dir, else ./pbem-data)")
	pos, code, done := c.parse(fs, args)
	if done {
		return "", nil, code, true
	}
	if len(pos) != 1 {
		fmt.Fprintf(c.stderr, "pbem %s: expected one backup file\n", name)
		return "", nil, 2, true
	}
	cfg, err := operatorConfig(*config, *data)
	if err != nil {
		fmt.Fprintf(c.stderr, "pbem %s: %v\n", name, err)
		return "", nil, 2, true
	}
	return pos[0], cfg, 0, false
}

func runBackup(c *cli, args []string) int {
	file, cfg, code, done := backupFlags(c, "backup", args)
	if done {
		return code
	}
	if cfg.postgres() {
		fmt.Fprintf(c.stderr, "pbem backup: %v\n", errPostgresBackup)
		return 1
	}
	n, err := backup(context.Background(), cfg.DataDir, file)
	if err != nil {
		fmt.Fprintf(c.stderr, "pbem backup: %v\n", err)
		return 1
	}
	fmt.Fprintf(c.stdout, "pbem backup: %s (%d bytes)", file, n)
	if _, err := os.Stat(backupSide(file)); err == nil {
		fmt.Fprintf(c.stdout, " and %s", backupSide(file))
	}
	fmt.Fprintln(c.stdout)
	return 0
}

// backup copies the store of dir to file (see above); it returns the size
// of the database copy.
func backup(ctx context.Context, dir, file string) (int64, error) {
	if _, err := os.Stat(filepath.Join(dir, archive.DBFile)); err != nil {
		return 0, fmt.Errorf("no store to back up: %w", err)
	}
	for _, p := range []string{file, backupSide(file)} {
		if _, err := os.Lstat(p); err == nil {
			return 0, fmt.Errorf("%s exists; expected the name of a new file", p)
		}
	}
	store, err := archive.Open(ctx, dir, nil)
	if err != nil {
		return 0, err
	}
	defer store.Close()
	side := backupSide(file)
	mailDir := filepath.Join(dir, "mail")
	if _, err := os.Stat(mailDir); err == nil {
		if err := copyDir(mailDir, filepath.Join(side, "mail")); err != nil {
			return 0, fmt.Errorf("mail journals: %w", err)
		}
	}
	tmp := file + ".tmp"
	os.Remove(tmp)
	if err := store.Backup(ctx, tmp); err != nil {
		return 0, err
	}
	if err := syncFile(tmp); err != nil {
		return 0, err
	}
	if err := os.Rename(tmp, file); err != nil {
		return 0, err
	}
	if err := syncDir(filepath.Dir(file)); err != nil {
		return 0, err
	}
	if _, err := os.Stat(filepath.Join(dir, acceptedLog)); err == nil {
		if err := copyFile(filepath.Join(dir, acceptedLog), filepath.Join(side, acceptedLog)); err != nil {
			return 0, fmt.Errorf("accepted log: %w", err)
		}
	}
	st, err := os.Stat(file)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

func runRestore(c *cli, args []string) int {
	file, cfg, code, done := backupFlags(c, "restore", args)
	if done {
		return code
	}
	if cfg.postgres() {
		fmt.Fprintf(c.stderr, "pbem restore: %v\n", errPostgresBackup)
		return 1
	}
	kept, err := restore(context.Background(), cfg.DataDir, file, time.Now())
	if err != nil {
		fmt.Fprintf(c.stderr, "pbem restore: %v\n", err)
		return 1
	}
	fmt.Fprintf(c.stdout, "pbem restore: %s restored into %s\n", file, cfg.DataDir)
	for _, k := range kept {
		fmt.Fprintf(c.stdout, "pbem restore: what it replaced is kept as %s\n", k)
	}
	return 0
}

// restore puts the backup file in place of dir's store, refusing while a
// referee runs on dir. The backup is checked first (its schema, exactly
// that of its version, and PRAGMA integrity_check) in a copy; what it replaces is renamed aside, never
// deleted; the names kept are returned.
func restore(ctx context.Context, dir, file string, now time.Time) (kept []string, err error) {
	if _, err := os.Stat(file); err != nil {
		return nil, err
	}
	unlock, err := lockData(dir)
	if errors.Is(err, errLocked) {
		return nil, fmt.Errorf("%v: stop pbem serve first", err)
	}
	if err != nil {
		return nil, err
	}
	defer unlock()
	// Check a copy, in the data directory so that it is renamed into place.
	work, err := os.MkdirTemp(dir, ".restore-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	if err := copyFile(file, filepath.Join(work, archive.DBFile)); err != nil {
		return nil, err
	}
	// The schema first, before anything of the file runs (a trigger
	// added to it would fire in the migrations Open makes).
	if err := archive.CheckSQLiteSchema(ctx, filepath.Join(work, archive.DBFile)); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	s, err := archive.Open(ctx, work, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	problems, err := s.IntegrityCheck(ctx)
	if err == nil {
		// One file again (no WAL beside it).
		_, err = s.DB().ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	}
	s.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s fails the integrity check: %v", file, problems)
	}
	stamp := now.UTC().Format("20060102T150405")
	aside := func(name string) error {
		p := filepath.Join(dir, name)
		if _, err := os.Lstat(p); err != nil {
			return nil
		}
		to := p + ".replaced-" + stamp
		if err := os.Rename(p, to); err != nil {
			return err
		}
		kept = append(kept, to)
		return nil
	}
	for _, name := range []string{archive.DBFile, archive.DBFile + "-wal", archive.DBFile + "-shm"} {
		if err := aside(name); err != nil {
			return kept, err
		}
	}
	if err := os.Rename(filepath.Join(work, archive.DBFile), filepath.Join(dir, archive.DBFile)); err != nil {
		return kept, err
	}
	side := backupSide(file)
	if _, err := os.Stat(filepath.Join(side, "mail")); err == nil {
		if err := aside("mail"); err != nil {
			return kept, err
		}
		if err := copyDir(filepath.Join(side, "mail"), filepath.Join(dir, "mail")); err != nil {
			return kept, err
		}
	}
	if _, err := os.Stat(filepath.Join(side, acceptedLog)); err == nil {
		if err := aside(acceptedLog); err != nil {
			return kept, err
		}
		if err := copyFile(filepath.Join(side, acceptedLog), filepath.Join(dir, acceptedLog)); err != nil {
			return kept, err
		}
	}
	return kept, syncDir(dir)
}

// copyFile copies src to dst durably (a temporary file, fsynced, renamed).
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	tmp := dst + ".tmp"
	out, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		return err
	}
	return syncDir(filepath.Dir(dst))
}

// copyDir copies the regular files of src (not its subdirectories) to dst.
func copyDir(src, dst string) error {
	es, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return err
	}
	for _, e := range es {
		if e.Type().IsRegular() {
			if err := copyFile(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	d.Sync() // not every file system syncs a directory; the rename stands
	return nil
}
