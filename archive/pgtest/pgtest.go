// Package pgtest runs a private PostgreSQL cluster for tests: initdb into a
// temporary directory, the server on a free loopback port with its unix
// socket in that directory and fsync off, one cluster per test binary. It
// starts when a test first asks for a store (URL) and stops when the
// package's tests end (Main, from TestMain). Each test gets an empty
// schema of its own in the cluster's one database, dropped when it ends
// (a schema costs a millisecond, a database a quarter of a second); the
// URL sets it as the search_path, followed by public, which holds the
// pg_trgm extension.
//
// The programs are found under /usr/lib/postgresql/*/bin (Debian's
// postgresql package; the newest version there), else on the PATH.
// PostgreSQL refuses to run as root: run as root, the cluster belongs to
// the system user postgres (which the Debian package creates), else to
// nobody, and its directory is given to that user.
//
// URL skips the test when PostgreSQL is not installed, unless the
// environment variable PBEM_REQUIRE_POSTGRES is set (CI sets it, so that a
// missing PostgreSQL fails the run instead of hiding the tests);
// .ci/postgres.sh installs it.
package pgtest

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// RequireEnv names the environment variable that turns a missing
// PostgreSQL from a skip into a failure.
const RequireEnv = "PBEM_REQUIRE_POSTGRES"

// superuser is the cluster's superuser role, which the tests connect as
// (trust authentication, loopback only).
const superuser = "pbem"

// database is the database of the tests' schemas.
const database = "pbem_test"

// Cluster is a running private PostgreSQL.
type Cluster struct {
	Dir  string // the cluster's directory: data, socket, log
	Port int    // on 127.0.0.1

	cmd    *exec.Cmd
	exited chan struct{}
	admin  *sql.DB // the tests' database, to create and drop schemas
	log    *logBuffer
	n      atomic.Int64
}

var (
	once    sync.Once
	cluster *Cluster
	failure error // why there is no cluster
)

// Main runs the package's tests (m.Run) and then stops the cluster if one
// was started, and exits with the tests' status. Call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	if cluster != nil {
		cluster.Stop()
	}
	os.Exit(code)
}

// URL returns the URL of a new, empty schema on the private cluster
// (starting it the first time), dropped when the test ends. It skips the
// test when PostgreSQL is not installed (fails it when
// PBEM_REQUIRE_POSTGRES is set), and fails it when the cluster does not
// start.
func URL(t testing.TB) string {
	t.Helper()
	return get(t).URL(t)
}

// Start starts a cluster of the test's own, stopped when the test ends:
// for a package whose tests cannot call Main (a second or so to start,
// where URL shares one cluster). It skips or fails as URL does.
func Start(t testing.TB) *Cluster {
	t.Helper()
	c, err := start()
	if err != nil {
		fail(t, err, absentErr(err))
	}
	t.Cleanup(c.Stop)
	return c
}

// URL is the package's URL on this cluster: a new, empty schema, dropped
// when the test ends.
func (c *Cluster) URL(t testing.TB) string {
	t.Helper()
	url, drop, err := c.NewSchema()
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return url
}

// get returns the running cluster, starting it the first time.
func get(t testing.TB) *Cluster {
	t.Helper()
	once.Do(func() { cluster, failure = start() })
	if failure != nil {
		fail(t, failure, absentErr(failure))
	}
	return cluster
}

// errAbsent is the error of start when PostgreSQL is not installed.
var errAbsent = errors.New("PostgreSQL not found (no initdb and postgres under /usr/lib/postgresql/*/bin or on the PATH)")

func absentErr(err error) bool { return errors.Is(err, errAbsent) }

// fail skips the test for a PostgreSQL not installed (fails it if
// PBEM_REQUIRE_POSTGRES is set), and fails it for a cluster that would
// not start.
func fail(t testing.TB, failure error, absent bool) {
	t.Helper()
	if absent {
		if os.Getenv(RequireEnv) != "" {
			t.Fatalf("pgtest: %v, and %s is set: run .ci/postgres.sh (apt-get install postgresql)", failure, RequireEnv)
		}
		t.Skipf("pgtest: %v (apt-get install postgresql; set %s to fail instead)", failure, RequireEnv)
	}
	t.Fatalf("pgtest: %v", failure)
}

// Binaries returns the directory of initdb and postgres, or "" if there
// is none.
func Binaries() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) })
	for _, d := range dirs {
		if isExec(filepath.Join(d, "initdb")) && isExec(filepath.Join(d, "postgres")) {
			return d
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil && isExec(filepath.Join(filepath.Dir(p), "postgres")) {
		return filepath.Dir(p)
	}
	return ""
}

// version is the major version of a /usr/lib/postgresql/N/bin directory.
func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

func isExec(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// start runs initdb and the server, trying three ports (one may be taken
// between its probe and the server's bind).
func start() (*Cluster, error) {
	bin := Binaries()
	if bin == "" {
		return nil, errAbsent
	}
	cred, err := credential()
	if err != nil {
		return nil, err
	}
	var lastErr error
	for range 3 {
		c, err := startOnce(bin, cred)
		if err == nil {
			return c, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

// credential is who runs the cluster: nil (this process's user) unless it
// is root, which PostgreSQL refuses to run as.
func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.Atoi(u.Uid)
		gid, err2 := strconv.Atoi(u.Gid)
		if err1 == nil && err2 == nil {
			return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
		}
	}
	return nil, errors.New("running as root, and neither the user postgres nor nobody exists to run PostgreSQL as (it refuses root)")
}

func startOnce(bin string, cred *syscall.Credential) (c *Cluster, err error) {
	dir, err := os.MkdirTemp("", "pbem-pgtest-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	if cred != nil {
		// The cluster's user must own its directory and reach it.
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, err
		}
		if err := os.Chmod(dir, 0o700); err != nil {
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", superuser, "--auth=trust",
		"--encoding=UTF8", "--no-locale", "--no-sync")
	initdb.Dir = dir
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	c = &Cluster{Dir: dir, Port: port, exited: make(chan struct{}), log: &logBuffer{}}
	c.cmd = exec.Command(filepath.Join(bin, "postgres"), "-D", data,
		"-p", strconv.Itoa(port), "-h", "127.0.0.1", "-k", dir,
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "shared_buffers=32MB", "-c", "max_connections=200", "-c", "log_min_messages=warning")
	c.cmd.Dir = dir
	c.cmd.Stdout, c.cmd.Stderr = c.log, c.log
	c.cmd.SysProcAttr = sysProcAttr(cred)
	if err := c.cmd.Start(); err != nil {
		return nil, fmt.Errorf("postgres: %v", err)
	}
	go func() {
		c.cmd.Wait()
		close(c.exited)
	}()
	c.admin, err = sql.Open("pgx", c.url("postgres", ""))
	if err != nil {
		c.Stop()
		return nil, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.admin.PingContext(ctx)
		cancel()
		if err == nil {
			if err := c.prepare(); err != nil {
				c.Stop()
				return nil, err
			}
			return c, nil
		}
		select {
		case <-c.exited:
			c.Stop()
			return nil, fmt.Errorf("postgres exited on port %d: %s", port, c.log.String())
		default:
		}
		if time.Now().After(deadline) {
			c.Stop()
			return nil, fmt.Errorf("postgres not ready after 30s: %v\n%s", err, c.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// prepare creates the tests' database, with pg_trgm in its public schema
// (where every schema's search_path finds it), and connects admin to it.
func (c *Cluster) prepare() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.admin.ExecContext(ctx, `CREATE DATABASE `+database); err != nil {
		return fmt.Errorf("create database %s: %w", database, err)
	}
	c.admin.Close()
	var err error
	if c.admin, err = sql.Open("pgx", c.url(database, "")); err != nil {
		return err
	}
	if _, err := c.admin.ExecContext(ctx, `CREATE EXTENSION pg_trgm SCHEMA public`); err != nil {
		return fmt.Errorf("create extension pg_trgm (PostgreSQL's contrib): %w", err)
	}
	return nil
}

// url is the address of a database of the cluster, with a schema first
// on the search path (none: the default).
func (c *Cluster) url(db, schema string) string {
	u := fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", superuser, c.Port, db)
	if schema != "" {
		u += "&search_path=" + schema + ",public"
	}
	return u
}

// NewSchema creates an empty schema and returns the URL that uses it and
// the function that drops it, with all it holds.
func (c *Cluster) NewSchema() (url string, drop func() error, err error) {
	name := fmt.Sprintf("test_%d", c.n.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.admin.ExecContext(ctx, `CREATE SCHEMA `+name); err != nil {
		return "", nil, fmt.Errorf("create schema %s: %w", name, err)
	}
	drop = func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := c.admin.ExecContext(ctx, `DROP SCHEMA `+name+` CASCADE`); err != nil {
			return fmt.Errorf("drop schema %s: %w", name, err)
		}
		return nil
	}
	return c.url(database, name), drop, nil
}

// Stop shuts the server down (fast: open sessions are ended) and removes
// its directory.
func (c *Cluster) Stop() {
	if c.admin != nil {
		c.admin.Close()
	}
	if c.cmd.Process != nil {
		c.cmd.Process.Signal(syscall.SIGINT) // fast shutdown
		select {
		case <-c.exited:
		case <-time.After(20 * time.Second):
			c.cmd.Process.Kill()
			<-c.exited
		}
	}
	os.RemoveAll(c.Dir)
}

// Log is what the server wrote (warnings and errors).
func (c *Cluster) Log() string { return strings.TrimSpace(c.log.String()) }

// logBuffer keeps what the server writes, read while it writes.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
