package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/archive"
	"pbem/mail/dovecottest"
	"pbem/mail/embedded"
)

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// noDNS is a resolver whose DNS server does not answer (a closed port),
// as on a machine without internet.
func noDNS(t *testing.T) *net.Resolver {
	addr := closedAddr(t)
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", addr)
	}}
}

type doctorCase struct {
	imap, smtp, user, imapPass, smtpPass, mailTo string
}

// runDoctorOn writes a configuration for c and runs the doctor on it.
func runDoctorOn(t *testing.T, c doctorCase) (int, string) {
	t.Helper()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	require.NoError(t, os.Mkdir(data, 0o755))
	cfg := fmt.Sprintf(`data_dir: %s
referee:
  address: %s
imap:
  addr: %s
  security: plain
  username: %s
smtp:
  addr: %s
  security: plain
  username: %s
`, data, c.user, c.imap, c.user, c.smtp, c.user)
	path := filepath.Join(dir, "pbem.yaml")
	require.NoError(t, os.WriteFile(path, []byte(cfg), 0o600))
	env := map[string]string{"PBEM_IMAP_PASSWORD": c.imapPass, "PBEM_SMTP_PASSWORD": c.smtpPass}
	d := &doctor{getenv: func(k string) string { return env[k] }, mailTo: c.mailTo, timeout: 5 * time.Second,
		resolver: noDNS(t), now: time.Now}
	d.run(context.Background(), path, "")
	var b strings.Builder
	code := d.report(&b)
	return code, b.String()
}

// TestDoctorEmbeddedMail runs pbem doctor against the embedded mail
// servers: good and bad passwords, a closed port, a test mail, and DNS
// that cannot be reached.
func TestDoctorEmbeddedMail(t *testing.T) {
	srv, err := embedded.Start(&embedded.Options{Passwords: map[string]string{"referee": "right"}})
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	ref := srv.RefereeAddress()

	code, out := runDoctorOn(t, doctorCase{imap: srv.IMAPAddr(), smtp: srv.SMTPAddr(), user: ref, imapPass: "right", smtpPass: "right",
		mailTo: "alice@pbem.local"})
	assert.Equal(t, 0, code, out)
	for _, want := range []string{
		"[ok] IMAP " + srv.IMAPAddr() + ": logged in as " + ref,
		"[ok] IMAP server offers IDLE",
		"[ok] SMTP " + srv.SMTPAddr() + ": authenticated as " + ref,
		"[ok] test mail to alice@pbem.local accepted",
		"[warn] data directory", "chmod 700",
		"[skip] could not reach DNS",
	} {
		assert.Contains(t, out, want)
	}
	st, err := srv.Status("alice", "INBOX")
	require.NoError(t, err)
	assert.Equal(t, uint32(1), *st.NumMessages, "the test mail arrived")

	code, out = runDoctorOn(t, doctorCase{imap: srv.IMAPAddr(), smtp: srv.SMTPAddr(), user: ref, imapPass: "wrong", smtpPass: "wrong"})
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "[FAIL] IMAP login as "+ref)
	assert.Contains(t, out, "check imap.username and the password in $PBEM_IMAP_PASSWORD")
	assert.Contains(t, out, "[FAIL] SMTP AUTH as "+ref)
	assert.Contains(t, out, "check smtp.username and the password in $PBEM_SMTP_PASSWORD")

	closed := closedAddr(t)
	code, out = runDoctorOn(t, doctorCase{imap: closed, smtp: closed, user: ref, imapPass: "right", smtpPass: "right"})
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "[FAIL] IMAP "+closed)
	assert.Contains(t, out, "[FAIL] SMTP "+closed)
	assert.Contains(t, out, "nothing listens on "+closed)

	code, out = runDoctorOn(t, doctorCase{imap: srv.IMAPAddr(), smtp: srv.SMTPAddr(), user: ref})
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "[FAIL] configuration: imap.password_env: the environment variable PBEM_IMAP_PASSWORD is not set")
}

// TestDoctorDovecot runs pbem doctor's IMAP checks against Dovecot: a good
// password, a bad one, and a closed port.
func TestDoctorDovecot(t *testing.T) {
	dv := dovecottest.Start(t, "referee")
	ref := "referee@" + dovecottest.Domain
	smtp := closedAddr(t)
	code, out := runDoctorOn(t, doctorCase{imap: dv.IMAPAddr, smtp: smtp, user: ref, imapPass: dv.Password(ref), smtpPass: "x"})
	assert.Equal(t, 1, code, "the SMTP port is closed:\n%s", out)
	assert.Contains(t, out, "[ok] IMAP "+dv.IMAPAddr+": logged in as "+ref)
	assert.Contains(t, out, "[ok] IMAP server offers IDLE")

	_, out = runDoctorOn(t, doctorCase{imap: dv.IMAPAddr, smtp: smtp, user: ref, imapPass: "not-" + dv.Password(ref), smtpPass: "x"})
	assert.Contains(t, out, "[FAIL] IMAP login as "+ref)

	dv.Stop()
	_, out = runDoctorOn(t, doctorCase{imap: dv.IMAPAddr, smtp: smtp, user: ref, imapPass: dv.Password(ref), smtpPass: "x"})
	assert.Contains(t, out, "[FAIL] IMAP "+dv.IMAPAddr)
	assert.Contains(t, out, "nothing listens on "+dv.IMAPAddr)
}

// TestDoctorStore: the doctor reads the store's schema version without
// changing the store, and fails a store of a newer pbem.
func TestDoctorStore(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o700))
	st, err := archive.Open(context.Background(), dir, nil)
	require.NoError(t, err)
	require.NoError(t, st.Close())
	check := func() (int, string) {
		d := &doctor{getenv: func(string) string { return "" }, timeout: time.Second, resolver: noDNS(t), now: time.Now}
		d.cfg, _ = operatorConfig("", dir)
		d.checkData(context.Background())
		var b strings.Builder
		return d.report(&b), b.String()
	}
	code, out := check()
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, fmt.Sprintf("schema version %d\n", archive.SchemaVersion()))
	assert.Contains(t, out, "is the owner's alone (mode 0700)")

	st, err = archive.Open(context.Background(), dir, nil)
	require.NoError(t, err)
	_, err = st.DB().Exec(`INSERT INTO schema_migrations (version, name, applied) VALUES (?, 'from the future', 0)`, archive.SchemaVersion()+1)
	require.NoError(t, err)
	require.NoError(t, st.Close())
	code, out = check()
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "newer than this pbem's")
}

// TestDoctorRefusesPlainElsewhere (issue 42): with security: plain to an
// address not on loopback, pbem serve refuses to start, but pbem doctor
// logged in there, the password in clear. It refuses the same, and
// nothing reaches the server.
func TestDoctorRefusesPlainElsewhere(t *testing.T) {
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	require.NoError(t, err)
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	host := "192.0.2.1" // TEST-NET-1: nothing answers, if no address of this machine will do
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
				host = n.IP.String()
				break
			}
		}
	}
	accepted := make(chan struct{}, 2)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	addr := net.JoinHostPort(host, port)
	code, out := runDoctorOn(t, doctorCase{imap: addr, smtp: addr, user: "referee@pbem.example", imapPass: "secret", smtpPass: "secret"})
	assert.Equal(t, 1, code, out)
	for _, want := range []string{
		"[FAIL] IMAP: mail: plain (unencrypted) connection to " + addr + " is allowed only on loopback",
		"[FAIL] SMTP: mail: plain (unencrypted) connection to " + addr + " is allowed only on loopback",
	} {
		assert.Contains(t, out, want)
	}
	select {
	case <-accepted:
		t.Errorf("pbem doctor connected to %s with security: plain; want it refused before dialing:\n%s", addr, out)
	default:
	}
}
